/**
 * The trainer's documented API: one config (env, method, run preset, seed, config values), resolved once,
 * and what can be done with it — warm-start, train, load a policy, evaluate, report. Experiments (grids of
 * methods × seeds) are `runExperiment`. See architecture/trainer.md.
 */

import { join, resolve } from 'node:path';
import { ConfigError, type EnvDefinitionV1, type RunnerEvent, type TrainingEvent } from '@mage-rl/core';
import {
  addEnvDefinition,
  type MemoryKind,
  type MethodId,
  type RunPresetId,
  type TrainConfig,
  type TrainConfigInput,
} from '@mage-rl/recipes';
import { type EvaluationV1, evaluatePolicy } from '../evaluate/evaluate-policy';
import { type LoadedPolicy, loadPolicy } from '../evaluate/load-policy';
import { type ReportFiles, readRun, writeReport } from '../report/run-report';
import { type TrainPipelineResult, trainConfigOf, trainPipeline } from '../train/train';
import type { PretrainProgress, PretrainResult } from '../warm-start/pretrain';
import { pretrainOrReuse } from '../warm-start/warm-start';

export interface TrainerConfig {
  /**
   * An env id of the recipes' registry (`tictactoe`, `kuhn-poker`, `sokoban`, …) or an env definition
   * (added to the registry of this process). Default: the registry's default env; `evaluate` plays a run
   * on the env it trained on unless this is given.
   */
  readonly env?: string | EnvDefinitionV1;
  /** Default `mage` (`evaluate`: a run's own method, else `reflexion`, unless this is given). */
  readonly method?: MethodId;
  /** Default: the env's recipe preset (`defaultPresetOf`: `reading` for Doors and Treasure, else `laptop`). */
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
}

/**
 * What long calls report: core's training events, the rollout runner's events (per phase), the warm
 * start's progress and log lines.
 */
export type TrainerEvent =
  | TrainingEvent
  | { readonly type: 'runner'; readonly phase: 'train' | 'eval'; readonly event: RunnerEvent }
  | { readonly type: 'warm-start-progress'; readonly progress: PretrainProgress }
  | { readonly type: 'log'; readonly line: string };

interface Observed {
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: TrainerEvent) => void;
}

export interface TrainOptions extends Observed {
  /** Continue the run directory from its last checkpoint (a finished run trains no more). */
  readonly resume?: boolean;
}

export interface WarmStartOptions extends Observed {
  /** The envs whose teachers make the corpus; default this trainer's env (several: a warm start for `model`). */
  readonly envs?: readonly string[];
  /** Write the warm start here instead of the cache entry (always pretrains). */
  readonly outDir?: string;
  /** Pretrain again even when the cache holds this warm start (the entry is replaced). */
  readonly force?: boolean;
  /** Meta-episodes per opponent of the warm model's evaluation (default: the preset's; 0 skips it). */
  readonly evalEpisodes?: number;
}

/** A warm start: how it was made, and whether the cache already held it. */
export interface WarmStartV1 extends PretrainResult {
  readonly cached: boolean;
}

/** The defaults of `evaluate` (the `mage eval` flags show them). */
export const EVALUATE_DEFAULTS = { episodes: 16, attempts: 3, seed: 0 } as const;

export interface EvaluateOptions extends Pick<Observed, 'signal'> {
  /** `teacher`, a run or model directory, or a server URL; default: this trainer's run directory. */
  readonly policy?: string;
  /** With a server URL: the served model name, and its API key. */
  readonly model?: string;
  readonly apiKey?: string;
  /** The method whose prompts the policy plays with; default: the trainer's, else a run's own, else `reflexion`. */
  readonly method?: MethodId;
  /** What earlier attempts leave in the context; default: a run's own memory, else the method's. */
  readonly memory?: MemoryKind;
  /** Default: the in-domain and out-of-domain opponents of the env's evaluation protocol. */
  readonly opponents?: readonly string[];
  /** Meta-episodes per opponent (`EVALUATE_DEFAULTS`). */
  readonly episodes?: number;
  /** Attempts per meta-episode, K (`EVALUATE_DEFAULTS`). */
  readonly attempts?: number;
  /** Evaluation seed (`EVALUATE_DEFAULTS`). */
  readonly seed?: number | string;
  /** Also play the same tasks with no memory (the memory benefit, with the identification ceiling). Default true. */
  readonly baseline?: boolean;
  /** Also play the same tasks with each earlier attempt's note taken from another meta-episode. Default false. */
  readonly foreignNotes?: boolean;
  /**
   * With `foreignNotes`: the policy (`teacher`, a run or model directory) whose notes, written on the same
   * tasks, are swapped in. Default: the evaluated policy's own.
   */
  readonly noteDonor?: string;
}

export interface Trainer {
  /** The resolved config (validated once, when the trainer is created). */
  readonly config: TrainConfig;
  readonly runDir: string;
  /** The cached mage-tiny warm start of this config, pretrained when missing (or `force`d). */
  warmStart(options?: WarmStartOptions): Promise<WarmStartV1>;
  /** Trains (warm start first when needed), writes checkpoints, metrics and the report. */
  train(options?: TrainOptions): Promise<TrainPipelineResult>;
  /** A policy from a spec (see `EvaluateOptions.policy`); call `dispose` when done. */
  loadPolicy(policy: string, options?: Pick<EvaluateOptions, 'model' | 'apiKey'>): Promise<LoadedPolicy>;
  /**
   * Plays the policy for K attempts against opponents with the prompt layout and evaluation sampling of
   * the preset (a run: its own task and evaluation protocol), with its memory and, on the same tasks,
   * with none and with foreign notes when asked.
   */
  evaluate(options?: EvaluateOptions): Promise<EvaluationV1>;
  /** Writes `report.md` and the charts of run directories (default: this one) into `outDir`. */
  report(options?: { readonly runDirs?: readonly string[]; readonly outDir?: string }): Promise<ReportFiles>;
}

/** The env id of `env`, adding a definition to the registry. */
function envIdOf(env: TrainerConfig['env']): string | undefined {
  return typeof env === 'object' ? addEnvDefinition(env).id : env;
}

/** The callbacks of the pipeline and the warm start that feed `onEvent`. */
function listeners(onEvent: ((event: TrainerEvent) => void) | undefined) {
  if (!onEvent) return {};
  return {
    onEvent,
    onRunnerEvent: (event: RunnerEvent, phase: 'train' | 'eval') => onEvent({ type: 'runner', phase, event }),
    onPretrainProgress: (progress: PretrainProgress) => onEvent({ type: 'warm-start-progress', progress }),
    log: (line: string) => onEvent({ type: 'log', line }),
  };
}

/** A trainer for one (env, method, preset, seed, config values); throws `ConfigError` on an invalid config. */
export function createTrainer(options: TrainerConfig = {}): Trainer {
  const env = envIdOf(options.env);
  const method = options.method ?? 'mage';
  const seed = options.seed ?? 1;
  const overrides = options.overrides ?? {};
  // Without an env, env options in the overrides are for the env a run trained on, which `evaluate` reads
  // from the run: the trainer's own config (the default env's) is resolved without them.
  const { options: _runEnvOptions, ...envWithoutOptions } = overrides.env ?? {};
  const own = env === undefined ? { ...overrides, env: envWithoutOptions } : overrides;
  const config = trainConfigOf({
    ...(env === undefined ? {} : { env }),
    method,
    ...(options.preset === undefined ? {} : { preset: options.preset }),
    seed,
    overrides: own,
  });
  // Without one, the preset is the one the config resolved to: the env's recipe preset.
  const preset = config.preset;
  const runDir = resolve(options.runDir ?? join('runs', `${config.env.id}-${method}-${preset}-s${seed}`));
  const model = options.model === undefined ? {} : { model: resolve(options.model) };
  const cacheDir = options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir };
  const signalOf = (o: { readonly signal?: AbortSignal }) => (o.signal ? { signal: o.signal } : {});
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
    warmStart(o = {}) {
      if (options.model !== undefined) {
        throw new ConfigError('`model` is the start of this trainer: there is no warm start to make.', {
          path: 'model',
        });
      }
      const { log, onPretrainProgress } = listeners(o.onEvent);
      return pretrainOrReuse({
        envs: o.envs ?? [config.env.id],
        preset,
        seed,
        overrides,
        ...cacheDir,
        ...(o.outDir === undefined ? {} : { outDir: resolve(o.outDir) }),
        ...(o.force ? { force: true } : {}),
        ...(o.evalEpisodes === undefined ? {} : { evalEpisodes: o.evalEpisodes }),
        ...signalOf(o),
        ...(log ? { log } : {}),
        ...(onPretrainProgress ? { onProgress: onPretrainProgress } : {}),
      });
    },
    train: (o = {}) =>
      trainPipeline({
        env: config.env.id,
        method,
        preset,
        seed,
        overrides,
        ...model,
        ...cacheDir,
        config,
        runDir,
        ...(o.resume ? { resume: true } : {}),
        ...signalOf(o),
        ...listeners(o.onEvent),
      }),
    loadPolicy: policyOf,
    evaluate: (o = {}) => {
      const method = o.method ?? options.method;
      return evaluatePolicy({
        policy: o.policy ?? runDir,
        ...(env === undefined ? {} : { env }),
        ...(method === undefined ? {} : { method }),
        ...(o.memory === undefined ? {} : { memory: o.memory }),
        preset,
        overrides,
        ...(o.opponents === undefined ? {} : { opponents: o.opponents }),
        episodes: o.episodes ?? EVALUATE_DEFAULTS.episodes,
        attempts: o.attempts ?? EVALUATE_DEFAULTS.attempts,
        seed: o.seed ?? EVALUATE_DEFAULTS.seed,
        ...(o.baseline === undefined ? {} : { baseline: o.baseline }),
        ...(o.foreignNotes === undefined ? {} : { foreignNotes: o.foreignNotes }),
        ...(o.noteDonor === undefined ? {} : { noteDonor: o.noteDonor }),
        ...(o.model === undefined ? {} : { model: o.model }),
        ...(o.apiKey === undefined ? {} : { apiKey: o.apiKey }),
        ...signalOf(o),
      });
    },
    async report(o = {}) {
      const dirs = o.runDirs ?? [runDir];
      const runs = await Promise.all(dirs.map((d) => readRun(d)));
      return writeReport(runs, o.outDir ?? dirs[0] ?? runDir);
    },
  };
}
