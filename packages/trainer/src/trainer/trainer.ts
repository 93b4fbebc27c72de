/**
 * The trainer's documented API: one config (env, method, run preset, seed, config values), resolved once,
 * and what can be done with it — warm-start, train, load a policy, evaluate, report. Experiments (grids of
 * methods × seeds) are `runExperiment`. See architecture/trainer.md.
 */

import { join, resolve } from 'node:path';
import type { TrainingEvent } from '@mage-rl/core';
import {
  createEnvById,
  evalPlayOptions,
  evaluateMethod,
  type MethodEvaluationV1,
  type MethodId,
  memoryLayoutOf,
  type RunPresetId,
  type TrainConfig,
  type TrainConfigInput,
} from '@mage-rl/recipes';
import { type LoadedPolicy, loadPolicy } from '../evaluate/load-policy';
import { type ReportFiles, readRun, writeReport } from '../report/run-report';
import { ensureWarmStart, type TrainPipelineResult, trainConfigOf, trainPipeline } from '../train/train';

export interface TrainerConfig {
  /** An env id of the recipes' registry (`tictactoe`, `kuhn-poker`, `sokoban`, …). */
  readonly env: string;
  /** Default `mage`. */
  readonly method?: MethodId;
  /** Default `laptop`. */
  readonly preset?: RunPresetId;
  /** Default 1. */
  readonly seed?: number;
  /** Default `runs/<env>-<method>-<preset>-s<seed>`. */
  readonly runDir?: string;
  /** A mage-tiny or Hugging Face directory to start from instead of the cached mage-tiny warm start. */
  readonly model?: string;
  /** The warm-start cache root (default `.mage-cache`). */
  readonly cacheDir?: string;
  /** Config values over the preset, the env's defaults and the method (the shape of `TrainConfig`). */
  readonly overrides?: TrainConfigInput;
  /** Progress lines (warm start, iterations, report). */
  readonly log?: (line: string) => void;
}

export interface TrainOptions {
  readonly signal?: AbortSignal;
  /** Every training event (`iteration-start`, `rollout-end`, `update-end`, `eval-end`, `checkpoint-saved` …). */
  readonly onEvent?: (event: TrainingEvent) => void;
  /** Continue the run directory from its last checkpoint (a finished run trains no more). */
  readonly resume?: boolean;
}

export interface EvaluateOptions {
  /** `teacher`, a run or model directory, or a server URL; default: this trainer's run directory. */
  readonly policy?: string;
  /** With a server URL: the served model name, and its API key. */
  readonly model?: string;
  readonly apiKey?: string;
  /** The method whose memory and prompts the policy plays with; default: the trainer's. */
  readonly method?: string;
  /** Default: the config's in-domain and out-of-domain opponents. */
  readonly opponents?: readonly string[];
  /** Meta-episodes per opponent (default 16). */
  readonly episodes?: number;
  /** Attempts per meta-episode, K (default 3). */
  readonly attempts?: number;
  /** Evaluation seed (default 0). */
  readonly seed?: number | string;
  readonly signal?: AbortSignal;
}

export interface Trainer {
  /** The resolved config (validated once, when the trainer is created). */
  readonly config: TrainConfig;
  readonly runDir: string;
  /** The warm-start model directory: the cached mage-tiny (pretrained when missing), or `model`. */
  warmStart(options?: { readonly signal?: AbortSignal }): Promise<string>;
  /** Trains (warm start first when needed), writes checkpoints, metrics and the report. */
  train(options?: TrainOptions): Promise<TrainPipelineResult>;
  /** A policy from a spec (see `EvaluateOptions.policy`); call `dispose` when done. */
  loadPolicy(policy: string, options?: Pick<EvaluateOptions, 'model' | 'apiKey'>): Promise<LoadedPolicy>;
  /** Plays the policy for K attempts against opponents with the config's prompt layout and sampling. */
  evaluate(options?: EvaluateOptions): Promise<MethodEvaluationV1>;
  /** Writes `report.md` and the charts of run directories (default: this one) into `outDir`. */
  report(options?: { readonly runDirs?: readonly string[]; readonly outDir?: string }): Promise<ReportFiles>;
}

/** A trainer for one (env, method, preset, seed, config values); throws `ConfigError` on an invalid config. */
export function createTrainer(options: TrainerConfig): Trainer {
  const method = options.method ?? 'mage';
  const preset = options.preset ?? 'laptop';
  const seed = options.seed ?? 1;
  const call = {
    env: options.env,
    method,
    preset,
    seed,
    ...(options.overrides ? { overrides: options.overrides } : {}),
  };
  const config = trainConfigOf(call);
  const runDir = resolve(options.runDir ?? join('runs', `${options.env}-${method}-${preset}-s${seed}`));
  const shared = {
    ...call,
    ...(options.model === undefined ? {} : { model: resolve(options.model) }),
    ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
    ...(options.log ? { log: options.log } : {}),
  };
  const policyOf = (policy: string, o: Pick<EvaluateOptions, 'model' | 'apiKey'> = {}) =>
    loadPolicy({
      policy,
      env: config.env.id,
      envOptions: config.env.options,
      style: config.rollout.style,
      ...(o.model === undefined ? {} : { model: o.model }),
      ...(o.apiKey === undefined ? {} : { apiKey: o.apiKey }),
    });
  return {
    config,
    runDir,
    warmStart: (o = {}) => ensureWarmStart({ ...shared, ...(o.signal ? { signal: o.signal } : {}) }),
    train: (o = {}) =>
      trainPipeline({
        ...shared,
        config,
        runDir,
        ...(o.resume ? { resume: true } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
        ...(o.onEvent ? { onEvent: o.onEvent } : {}),
      }),
    loadPolicy: policyOf,
    async evaluate(o = {}) {
      const { policy, dispose } = await policyOf(o.policy ?? runDir, o);
      try {
        return await evaluateMethod({
          env: createEnvById(config.env.id, { ...config.env.options, ...config.eval.envOptions }),
          policy,
          method: o.method ?? method,
          opponents: o.opponents ?? [...config.eval.inDomain, ...config.eval.outOfDomain],
          episodes: o.episodes ?? 16,
          attempts: o.attempts ?? 3,
          memoryOptions: memoryLayoutOf(config),
          ...evalPlayOptions(config),
          seed: o.seed ?? 0,
          ...(o.signal ? { signal: o.signal } : {}),
        });
      } finally {
        await dispose();
      }
    },
    async report(o = {}) {
      const dirs = o.runDirs ?? [runDir];
      const runs = await Promise.all(dirs.map((d) => readRun(d)));
      return writeReport(runs, o.outDir ?? dirs[0] ?? runDir);
    },
  };
}
