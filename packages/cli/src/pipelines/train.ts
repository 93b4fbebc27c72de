/**
 * `mage train`: resolve the config (preset → env → method → overrides), warm-start mage-tiny (cached),
 * run core's training loop with the recipes' wiring, and write the report into the run directory.
 */

import { join } from 'node:path';
import {
  ConfigError,
  iterateTraining,
  type JsonObject,
  pathExists,
  type RunnerEvent,
  type TrainingEvent,
  type TrainingResultV1,
} from '@mage-rl/core';
import {
  envDefinition,
  METHODS,
  type MethodId,
  type RunPresetId,
  resolveTrainConfig,
  type TrainConfig,
  type TrainConfigInput,
  trainingOptionsOf,
} from '@mage-rl/recipes';
import { type ReportFiles, readRun, writeReport } from '../report/run-report';
import { loadModel } from './policy-model';
import { DEFAULT_CACHE_DIR, type PretrainProgress, pretrainMageTiny, warmStartDir } from './pretrain';
import { assertWarmStartTeacher } from './warm-start-corpus';

export interface TrainPipelineOptions {
  readonly env: string;
  readonly method: MethodId;
  readonly preset: RunPresetId;
  readonly seed: number;
  readonly runDir: string;
  readonly resume?: boolean;
  /**
   * A mage-tiny directory or a Hugging Face checkpoint directory to start from; default: the cached
   * mage-tiny warm start (created when missing).
   */
  readonly model?: string;
  readonly cacheDir?: string;
  /** User values over the preset (same shape as the config). */
  readonly overrides?: TrainConfigInput;
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
}

/** The resolved config of a `mage train` call (also validates it). */
export function trainConfigOf(
  options: Pick<TrainPipelineOptions, 'env' | 'method' | 'preset' | 'seed' | 'overrides'>,
): TrainConfig {
  const config = resolveTrainConfig(options.overrides ?? {}, {
    preset: options.preset,
    method: options.method,
    env: options.env,
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

/** The warm start a run uses: `model`, or the cached one for (env, preset, seed), pretrained if missing. */
export async function ensureWarmStart(
  options: Pick<
    TrainPipelineOptions,
    'env' | 'preset' | 'seed' | 'model' | 'cacheDir' | 'signal' | 'log' | 'onPretrainProgress'
  >,
): Promise<string> {
  if (options.model !== undefined) return options.model;
  assertWarmStartTeacher(envDefinition(options.env));
  const spec = { envs: [options.env], preset: options.preset, seed: options.seed };
  const dir = warmStartDir(options.cacheDir ?? DEFAULT_CACHE_DIR, spec);
  if (await pathExists(join(dir, 'mage-tiny.json'))) {
    options.log?.(`warm start: ${dir} (cached)`);
    return dir;
  }
  options.log?.(
    `warm start: none cached for ${options.env}/${options.preset}/seed ${options.seed}; pretraining mage-tiny into ${dir}`,
  );
  const r = await pretrainMageTiny({
    ...spec,
    outDir: dir,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.log ? { log: options.log } : {}),
    ...(options.onPretrainProgress ? { onProgress: options.onPretrainProgress } : {}),
  });
  for (const e of r.envs) {
    options.log?.(
      `warm start ${e.env}: legal moves ${(100 * e.legalMoveRate).toFixed(1)}%, pass@k ${e.passAtK.map((x) => x.toFixed(2)).join(' ')} (${r.seconds.toFixed(0)} s)`,
    );
  }
  return dir;
}

export async function trainPipeline(options: TrainPipelineOptions): Promise<TrainPipelineResult> {
  const config = trainConfigOf(options);
  const warmStart = await ensureWarmStart(options);
  const optimizer = {
    lr: config.ppo.lr,
    weightDecay: config.ppo.weightDecay,
    maxGradNorm: config.ppo.gradClip,
  };
  const learner = await loadModel(warmStart, { seed: `${options.seed}/learner`, optimizer });
  const reference =
    config.ppo.klCoef > 0 ? await loadModel(warmStart, { runner: 'local', lora: false }) : undefined;
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
    for await (const event of iterateTraining({
      ...training,
      config: { ...(training.config ?? {}), warmStartDir: warmStart } as JsonObject,
    })) {
      options.onEvent?.(event);
      if (event.type === 'eval-end') lastEval = event;
      if (event.type === 'run-end') {
        result = { iterations: event.iterations, lastCheckpoint: event.lastCheckpoint, lastEval };
      }
    }
    const report = await writeReport([await readRun(options.runDir)], options.runDir);
    return { runDir: options.runDir, config, warmStart, result: result as TrainingResultV1, report };
  } finally {
    await learner.dispose();
    await reference?.dispose();
  }
}
