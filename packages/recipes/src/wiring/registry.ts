/**
 * Explicit wiring by id over the env registry (`../environments`): envs, opponent factories, populations,
 * and the memories of the methods. No registration by import side effects.
 */

import {
  createPopulation,
  type EnvV1,
  fixedPopulation,
  type MemoryV1,
  type OpponentV1,
  type PopulationMode,
  type PopulationV1,
  UnknownIdError,
} from '@mage-rl/core';
import { createServedEnv, splitConnectionOptions } from '@mage-rl/env-remote';
import {
  type AMemOptions,
  createAMemMemory,
  createMementoMemory,
  createMemory,
  type LayoutOptions,
  MEMORY_MODES,
  type MementoOptions,
  type MemoryMode,
} from '@mage-rl/reflection';
import { envDefinition, REMOTE_ENV_IDS } from '../environments/registry';

/** Memory modes of `@mage-rl/reflection` plus the two retrieval baselines. */
export const MEMORY_KINDS = [
  'reflection',
  'history',
  'reflection+history',
  'none',
  'memento',
  'a-mem',
] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];
// Every memory mode of @mage-rl/reflection is a kind (compile-time check).
const _modesAreKinds: readonly MemoryKind[] = [] as MemoryMode[];

/**
 * Builds env `id` with `options` (validated by the env: a bad option throws `ConfigError`). For an env
 * that runs in process, the option `url` (`--env-url`) plays it on that `mage env-serve` server instead,
 * with the connection options `timeoutMs`, `retries`, `retryDelayMs` and `maxInstances`; the other
 * options are the env's own. ALFWorld and WebShop take `url` as an option of their own.
 */
export function createEnvById(id: string, options: Readonly<Record<string, unknown>> = {}): EnvV1 {
  const definition = envDefinition(id);
  if (options.url === undefined || REMOTE_ENV_IDS.includes(id)) return definition.create(options);
  const { connection, rest } = splitConnectionOptions(id, options);
  return createServedEnv(definition.create(rest), connection);
}

/**
 * A `makeOpponent` for the runner: fresh opponents of env `envId` by id (`undefined` for single-agent
 * envs). `S` and `A` are the env's state and action types (the definition of `envId` builds opponents of
 * that env).
 */
export function opponentFactory<S = unknown, A = unknown>(
  envId: string,
): ((id: string) => OpponentV1<S, A>) | undefined {
  const opponents = envDefinition(envId).opponents;
  if (!opponents) return undefined;
  return (id) => opponents.create(id) as OpponentV1<S, A>;
}

/** Throws `UnknownIdError` (listing the known ids) unless env `envId` has opponent `id`. */
export function checkOpponentId(envId: string, id: string): void {
  const opponents = envDefinition(envId).opponents;
  if (!opponents?.has(id)) {
    throw new UnknownIdError('opponent', id, opponents ? [...opponents.patterns, ...opponents.ids] : []);
  }
}

/** Population preset names of an env (`balanced`, `ood`, … plus `fixed`); none for single-agent envs. */
export function populationNames(envId: string): string[] {
  const opponents = envDefinition(envId).opponents;
  return opponents ? [...Object.keys(opponents.populations), 'fixed'] : [];
}

export interface PopulationChoice {
  /** A population of the env (`balanced`, `patterns`, `ood`) or `fixed`. */
  readonly preset: string;
  /** The opponent of the `fixed` population. */
  readonly fixedOpponent: string | null;
  readonly mode: PopulationMode;
  readonly grouping: 'per-opponent' | 'mixed';
}

/** The training population of a two-player env; `undefined` for single-agent envs. */
export function createPopulationFor(envId: string, choice: PopulationChoice): PopulationV1 | undefined {
  const opponents = envDefinition(envId).opponents;
  if (!opponents) return undefined;
  const options = { mode: choice.mode, grouping: choice.grouping };
  if (choice.preset === 'fixed') {
    const id = choice.fixedOpponent;
    if (id === null) throw new UnknownIdError('opponent', 'null', opponents.ids);
    checkOpponentId(envId, id);
    const fixed = fixedPopulation(id);
    return createPopulation(fixed.name, fixed.entries, options);
  }
  const entries = Object.hasOwn(opponents.populations, choice.preset)
    ? opponents.populations[choice.preset]
    : undefined;
  if (!entries) throw new UnknownIdError('population', choice.preset, Object.keys(opponents.populations));
  return createPopulation(`${envId}-${choice.preset}`, entries, options);
}

export interface MethodMemoryOptions extends LayoutOptions {
  readonly memento?: Omit<MementoOptions, keyof LayoutOptions>;
  readonly aMem?: Omit<AMemOptions, keyof LayoutOptions>;
}

/** A fresh memory of `kind` (retrieval memories start empty unless given cases / notes). */
export function createMemoryOfKind(kind: MemoryKind, options: MethodMemoryOptions = {}): MemoryV1 {
  const { memento, aMem, ...layout } = options;
  if (kind === 'memento') return createMementoMemory({ ...layout, ...memento });
  if (kind === 'a-mem') return createAMemMemory({ ...layout, ...aMem });
  if (!(MEMORY_MODES as readonly string[]).includes(kind))
    throw new UnknownIdError('memory', String(kind), MEMORY_KINDS);
  return createMemory({ ...layout, mode: kind as MemoryMode });
}
