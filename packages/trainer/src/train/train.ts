/**
 * `mage train`: resolve the config (preset → env → method → overrides), resolve the run's warm start once
 * (`warm-start/warm-start.ts`: a given model or the cached mage-tiny, found, built and loaded there), run
 * core's training loop with the recipes' wiring, and write the report into the run directory.
 */

import { join, resolve } from 'node:path';
import {
  assertFreshRunDir,
  ConfigError,
  checkResumeConfig,
  iterateTraining,
  type LearnerV1,
  latestCheckpoint,
  pathExists,
  type RunLock,
  type RunnerEvent,
  type TrainingEvent,
  type TrainingOptions,
  type TrainingResultV1,
  trainingConfigOf,
  withRunLock,
} from '@mage-rl/core';
import {
  checkRunMemory,
  DEFAULT_LORA,
  estimateRunMemory,
  loadModel,
  loraOf,
  modelConfigOf,
  type OnnxLearner,
  runtimeVersions,
} from '@mage-rl/learner';
import {
  METHODS,
  type MethodId,
  memoryBudgetOf,
  type RunPresetId,
  resolveTrainConfig,
  type TrainConfig,
  type TrainConfigInput,
  trainingOptionsOf,
} from '@mage-rl/recipes';
import { lastEval } from '@mage-rl/report';
import { createServedLearner } from '@mage-rl/serve';
import { type ReportFiles, readRun, writeReport } from '../report/run-report';
import { trainerCode } from '../run-record/code';
import { readRunRecord, runRecordFor } from '../run-record/run-record';
import type { PretrainProgress } from '../warm-start/pretrain';
import { type ResolvedWarmStart, resolveWarmStart } from '../warm-start/warm-start';
import { memoryLimitsOfConfig } from './memory-limits';
import { type RunLearners, tinkerLearners } from './tinker-learners';

export interface TrainPipelineOptions {
  readonly env: string;
  readonly method: MethodId;
  readonly preset: RunPresetId;
  readonly seed: number;
  readonly runDir: string;
  readonly resume?: boolean;
  /**
   * A mage-tiny directory or a Hugging Face checkpoint directory to start from; default: the cached
   * mage-tiny warm start (created when missing). With `learner.backend: tinker`, the directory of the
   * base model's tokenizer (required).
   */
  readonly model?: string;
  readonly cacheDir?: string;
  /** User values over the preset (same shape as the config). */
  readonly overrides?: TrainConfigInput;
  /** The config already resolved from the fields above (`trainConfigOf`), so it is resolved once. */
  readonly config?: TrainConfig;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: TrainingEvent) => void;
  readonly onRunnerEvent?: (event: RunnerEvent, phase: 'train' | 'eval') => void;
  readonly onPretrainProgress?: (p: PretrainProgress) => void;
  readonly log?: (line: string) => void;
}

export interface TrainPipelineResult {
  readonly runDir: string;
  readonly config: TrainConfig;
  readonly warmStart: string;
  readonly result: TrainingResultV1;
  readonly report: ReportFiles;
  /** True when a resumed run had already trained all its iterations (nothing ran). */
  readonly alreadyFinished: boolean;
}

/** The resolved config of a `mage train` call (also validates it). */
export function trainConfigOf(
  options: Pick<TrainPipelineOptions, 'method' | 'seed' | 'overrides'> & {
    /** Default: the registry's default env. */
    readonly env?: string;
    /** Default: the env's recipe preset (`defaultPresetOf`). */
    readonly preset?: RunPresetId;
  },
): TrainConfig {
  const config = resolveTrainConfig(options.overrides ?? {}, {
    ...(options.preset === undefined ? {} : { preset: options.preset }),
    method: options.method,
    ...(options.env === undefined ? {} : { env: options.env }),
    seed: options.seed,
  });
  if (!METHODS[config.method].trains) {
    throw new ConfigError(
      `Method '${config.method}' does not train (it is an inference-time baseline); evaluate it with \`mage eval --method ${config.method}\`.`,
      { path: 'method' },
    );
  }
  return config;
}

/**
 * Paths of that record a resume may change (the saved record keeps its value): the iteration count
 * extends or shortens a run, and the memory budget sizes caches and generation chunks, not what is
 * computed, so a run may resume on another machine (and a record written before the budget existed
 * resumes with its default).
 */
export const RESUME_SAFE_CONFIG_PATHS: readonly string[] = ['train.iterations', 'memory'];

/**
 * Settings added after runs were recorded, with the value that computes what those runs computed: a
 * record without the path resumes when the run keeps that value.
 */
const ADDED_SETTINGS: readonly (readonly [path: string, value: unknown])[] = [
  ['advantage.episodeScore', 'meta-reward'],
  ['ppo.klUpperEdge', 'hold'],
  ['advantage.penaltyScope', 'episode'],
];

function valueAt(config: unknown, path: string): unknown {
  let node = config;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object' || !(key in node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * The resume-safe paths of `runDir`'s resume: `RESUME_SAFE_CONFIG_PATHS`; `learner` when the saved record
 * predates that section (every such run trained in this process) and this run trains locally too; and
 * every setting added since the record was written (`ADDED_SETTINGS`) that the run leaves at the value
 * the record's run computed with.
 */
export async function resumeSafePathsOf(runDir: string, config: TrainConfig): Promise<readonly string[]> {
  if (!(await pathExists(join(runDir, 'config.json')))) return RESUME_SAFE_CONFIG_PATHS;
  const saved = (await readRunRecord(runDir)).config;
  if (saved === null) return RESUME_SAFE_CONFIG_PATHS;
  const added = ADDED_SETTINGS.filter(
    ([path, value]) => valueAt(saved, path) === undefined && valueAt(config, path) === value,
  ).map(([path]) => path);
  const learner = config.learner.backend === 'local' && !('learner' in saved) ? ['learner'] : [];
  return [...RESUME_SAFE_CONFIG_PATHS, ...learner, ...added];
}

/**
 * The result of a resumed run that has already trained all its iterations (nothing is loaded or
 * pretrained; the report is written again), or null when there is work left.
 */
async function finishedRun(
  options: TrainPipelineOptions,
  config: TrainConfig,
  warmStart: ResolvedWarmStart,
): Promise<TrainPipelineResult | null> {
  const last = await latestCheckpoint(options.runDir);
  if (last === null || last.state.nextIteration < config.train.iterations) return null;
  const run = await readRun(options.runDir);
  const report = await writeReport([run], options.runDir);
  const recorded = (await readRunRecord(options.runDir)).warmStartDir;
  return {
    runDir: options.runDir,
    config,
    warmStart: recorded ?? warmStart.dir,
    result: {
      iterations: last.state.nextIteration,
      lastCheckpoint: last.dir,
      lastEval: lastEval(run) ?? null,
    },
    report,
    alreadyFinished: true,
  };
}

/**
 * The learner of `rollout.backend: openai`: updates on `local`, rollouts through the configured server
 * from the adapter `<model>-mage-lora`, pushed from `<runDir>/served-adapter/` after every update.
 */
function servedLearnerOf(config: TrainConfig, local: OnnxLearner, runDir: string): LearnerV1 {
  const { baseURL, model, apiKeyEnv } = config.rollout.openai;
  if (baseURL === null || model === null) {
    throw new ConfigError('rollout.openai.baseURL and rollout.openai.model must be set.', {
      path: 'rollout.openai',
    });
  }
  const apiKey = apiKeyEnv === null ? undefined : process.env[apiKeyEnv];
  if (apiKeyEnv !== null && !apiKey) {
    throw new ConfigError(`rollout.openai.apiKeyEnv names ${apiKeyEnv}, which is not set.`, {
      path: 'rollout.openai.apiKeyEnv',
    });
  }
  return createServedLearner({
    learner: local,
    lora: DEFAULT_LORA,
    baseURL,
    adapterName: `${model}-mage-lora`,
    adapterDir: join(resolve(runDir), 'served-adapter'),
    ...(apiKey ? { apiKey } : {}),
  });
}

/**
 * Trains under the run-directory lock. Everything that can refuse the run (a second writer, a run
 * directory holding another run, a resume with another configuration, a model that is not one, an env
 * with no warm-start teacher) is checked before the warm start is pretrained; a resumed run that is
 * complete returns at once. The warm start is resolved here, once (`resolveWarmStart`).
 */
export async function trainPipeline(options: TrainPipelineOptions): Promise<TrainPipelineResult> {
  const config = options.config ?? trainConfigOf(options);
  const warmStart = resolveWarmStart(options);
  return withRunLock(options.runDir, async (lock) => {
    if (options.resume) {
      await checkResumeConfig(
        options.runDir,
        { extra: await runRecordFor(options.runDir, config, warmStart.dir) },
        await resumeSafePathsOf(options.runDir, config),
      );
      const finished = await finishedRun(options, config, warmStart);
      if (finished) return finished;
    } else {
      await assertFreshRunDir(options.runDir);
    }
    // With `learner.backend: tinker`, `model` is the base model's tokenizer directory, not a warm start.
    if (config.learner.backend === 'local') await warmStart.check();
    return trainLoaded(options, config, warmStart, lock);
  });
}

/** The embedded model's learners: the warm start (cached or `--model`), served or local, and its reference. */
async function localLearners(
  options: TrainPipelineOptions,
  config: TrainConfig,
  resolved: ResolvedWarmStart,
): Promise<RunLearners> {
  const optimizer = {
    lr: config.ppo.lr,
    weightDecay: config.ppo.weightDecay,
    maxGradNorm: config.ppo.gradClip,
  };
  const served = config.rollout.backend === 'openai';
  const modelConfig = await modelConfigOf(resolved.dir);
  const memory = memoryLimitsOfConfig(config);
  checkRunMemory(
    estimateRunMemory(modelConfig, {
      lora: served || loraOf(modelConfig, undefined) !== undefined,
      reference: config.ppo.klCoef > 0,
      memory,
    }),
    'training',
    { budget: memoryBudgetOf(config), ...(options.log ? { log: options.log } : {}) },
  );
  // The learner and its reference take log-probs at the temperature rollouts sample at (a server's
  // rollouts come with their own log-probs, at temperature 1).
  const temperature = served || config.rollout.temperature === 0 ? 1 : config.rollout.temperature;
  const logprobs = temperature === 1 ? {} : { logprobTemperature: temperature };
  const { dir: warmStart, loaded: local } = await resolved.load((dir) =>
    loadModel(dir, {
      seed: `${options.seed}/learner`,
      optimizer,
      memory,
      ...logprobs,
      // Rollouts on a server sample from a LoRA adapter the trainer pushes.
      ...(served ? { lora: DEFAULT_LORA } : {}),
    }),
  );
  const learner = served ? servedLearnerOf(config, local, options.runDir) : local;
  // The reference model only scores: its weights are handed to its runner, not copied. It runs on a
  // worker thread of its own, so its forward passes overlap the learner's training (`referenceAhead`).
  const reference =
    config.ppo.klCoef > 0
      ? await loadModel(warmStart, {
          runner: 'worker',
          lora: false,
          memory,
          inferenceOnly: true,
          ...logprobs,
        })
      : undefined;
  return {
    warmStart,
    learner,
    ...(reference ? { reference } : {}),
    runtime: runtimeVersions(),
    async dispose() {
      await local.dispose();
      await reference?.dispose();
    },
  };
}

/** Trains holding `lock`, the run directory's (the loop does not take it again). */
async function trainLoaded(
  options: TrainPipelineOptions,
  config: TrainConfig,
  resolved: ResolvedWarmStart,
  lock: RunLock | null,
): Promise<TrainPipelineResult> {
  // The one place a run's learner is chosen: `learner.backend` (architecture/tinker.md).
  const learners =
    config.learner.backend === 'tinker'
      ? await tinkerLearners(config, {
          seed: options.seed,
          ...(options.model === undefined ? {} : { model: options.model }),
          ...(options.signal ? { signal: options.signal } : {}),
        })
      : await localLearners(options, config, resolved);
  const { warmStart, learner, reference, runtime } = learners;
  try {
    const training = trainingOptionsOf(config, {
      learner,
      ...(reference ? { reference } : {}),
      runDir: options.runDir,
      ...(options.resume ? { resume: true } : {}),
      ...(options.onRunnerEvent ? { onRunnerEvent: options.onRunnerEvent } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    let result: TrainingResultV1 | undefined;
    let lastEval: TrainingResultV1['lastEval'] = null;
    const loop: TrainingOptions = {
      ...training,
      config: await runRecordFor(options.runDir, config, warmStart),
      resumeSafePaths: await resumeSafePathsOf(options.runDir, config),
      ...(lock === null ? {} : { runLock: lock }),
      ...(runtime ? { runtime } : {}),
      code: trainerCode(),
    };
    // The recipes' schema validated the config these options come from: the loop only fills its defaults.
    for await (const event of iterateTraining(loop, trainingConfigOf(loop))) {
      options.onEvent?.(event);
      if (event.type === 'eval-end') lastEval = event;
      if (event.type === 'run-end') {
        result = { iterations: event.iterations, lastCheckpoint: event.lastCheckpoint, lastEval };
      }
    }
    const report = await writeReport([await readRun(options.runDir)], options.runDir);
    return {
      runDir: options.runDir,
      config,
      warmStart,
      result: result as TrainingResultV1,
      report,
      alreadyFinished: false,
    };
  } finally {
    await learners.dispose();
  }
}
