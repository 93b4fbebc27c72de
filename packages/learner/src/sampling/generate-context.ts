/** What the phases of one generate call share (`generator.ts`, `prefill.ts`): context, cache and row state. */

import type { Rng } from '@mage-rl/core';
import type { ModelConfig } from '../model/config';
import type { GraphRunner, LoadOptions } from '../runtime/runner';
import type { GeneratedRow, GeneratorStats } from './generator';
import type { InferenceGraphOptions } from './graphs';
import type { PrefixIndex } from './prefix-cache';

/** What the phases of a generate call share: the model, where it runs, and its sessions' names. */
export interface GenerateContext {
  readonly config: ModelConfig;
  readonly runner: GraphRunner;
  /** Key prefix of this model's sessions. */
  readonly prefix: string;
  readonly graphOptions: Pick<InferenceGraphOptions, 'lora'>;
  /** Session options of a run of `rows` × `tokens` new positions attending to `keys` positions. */
  readonly sessionOptions: (rows: number, tokens: number, keys: number) => LoadOptions;
  readonly cache: PrefixCacheState | undefined;
  /** Rows of one run at most (`GeneratorOptions.maxRows`). */
  readonly maxRows: number;
  readonly compactRuns: boolean;
  /** The temperature of the log-probs reported with each token (`GeneratorOptions.logprobTemperature`). */
  readonly logprobTemperature: number;
  readonly stats: MutableStats;
}

export type MutableStats = { -readonly [K in keyof GeneratorStats]: GeneratorStats[K] };

/** The prefix cache of a generator: its index and the weights version its saved keys/values belong to. */
export interface PrefixCacheState {
  readonly index: PrefixIndex;
  readonly weightsVersion: (() => number) | undefined;
  version: number | undefined;
  readonly save: NonNullable<GraphRunner['saveKv']>;
  readonly restore: NonNullable<GraphRunner['restoreKv']>;
  readonly drop: NonNullable<GraphRunner['dropKv']>;
}

/** A row being generated. */
export interface RowState {
  readonly limit: number;
  readonly rng: Rng;
  readonly tokens: number[];
  readonly logprobs: number[];
  finish: GeneratedRow['finishReason'] | null;
  /** Position of the token fed to the next decode step. */
  pos: number;
  /** The token fed to the next decode step (the last one sampled). */
  next: number;
}
