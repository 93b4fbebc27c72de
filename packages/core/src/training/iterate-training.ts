/**
 * The training loop: per iteration a rollout, the update (advantages from the injected function, optional
 * reference log-probs, `learner.update` with the injected token loss), periodic evaluation and atomic
 * checkpoints in the run directory. Each phase is a function of its own (`open-run.ts`,
 * `rollout-phase.ts`, `update-phase.ts`); this file only orders them and records what they return.
 */

import { join } from 'node:path';
import { InvalidArgumentError, throwIfAborted } from '@mage-rl/spec';
import type { EvalStatsV1, MetricsLineV1, TrainingEvent, TrainingResultV1 } from './events';
import { openRun } from './open-run';
import { type ResolvedTrainingConfig, resolveTrainingOptions, type TrainingOptions } from './options';
import { REPLAY_TRAIN_SAMPLE, type ReplayEpisodeV1, replayEpisodes, writeEpisodes } from './replay-record';
import { evaluationPhase, rolloutPhase } from './rollout-phase';
import { CHECKPOINT_STATE_FORMAT, type MetricsWriter, writeCheckpoint } from './run-dir';
import { lockRunDir, runLockPath } from './run-lock';
import { updatePhase } from './update-phase';

const now = (): number => performance.now();

/** Writes a checkpoint of the learner (and memory state) after `iteration`; returns its directory. */
async function checkpointPhase<S, A>(
  options: TrainingOptions<S, A>,
  config: ResolvedTrainingConfig,
  runDir: string,
  metrics: MetricsWriter,
  iteration: number,
): Promise<{ dir: string; pruned: string[] }> {
  throwIfAborted(options.signal);
  await metrics.sync();
  return writeCheckpoint({
    runDir,
    state: {
      format: CHECKPOINT_STATE_FORMAT,
      iteration,
      nextIteration: iteration + 1,
      seed: config.seed,
      learnerId: options.learner.id,
      metricsLines: metrics.lines,
      memory: options.memoryState ? options.memoryState.save() : null,
    },
    save: (dir) => options.learner.save(dir),
    keep: config.keepCheckpoints,
  });
}

/**
 * Runs training and yields typed events; returns a summary. Abort with `signal` (checked between phases and
 * inside rollouts and updates). With `runDir`, writes config.json, metrics.jsonl and checkpoints; with
 * `resume`, continues from the latest complete checkpoint and reproduces the uninterrupted run exactly.
 * `resolved`: the options' numbers from a caller that has validated what they come from
 * (`trainingConfigOf(options)`), so they are not validated again; without it they are validated here.
 */
export async function* iterateTraining<S, A>(
  options: TrainingOptions<S, A>,
  resolved?: ResolvedTrainingConfig,
): AsyncGenerator<TrainingEvent, TrainingResultV1, undefined> {
  const config = resolved ?? resolveTrainingOptions(options);
  throwIfAborted(options.signal);
  // One writer per run directory (see run-lock.ts): the caller's lock, or one taken here and released
  // however the loop ends.
  if (options.runLock !== undefined) {
    if (options.runDir === undefined || options.runLock.path !== runLockPath(options.runDir)) {
      throw new InvalidArgumentError(
        `runLock '${options.runLock.path}' is not the lock of runDir '${options.runDir ?? '(none)'}'.`,
      );
    }
    return yield* trainingLoop(options, config);
  }
  const lock = options.runDir ? await lockRunDir(options.runDir) : null;
  try {
    return yield* trainingLoop(options, config);
  } finally {
    await lock?.release();
  }
}

async function* trainingLoop<S, A>(
  options: TrainingOptions<S, A>,
  config: ResolvedTrainingConfig,
): AsyncGenerator<TrainingEvent, TrainingResultV1, undefined> {
  const started = now();
  const runDir = options.runDir ?? null;
  const { startIteration, resumedFrom, metrics, ...opened } = await openRun(options, config);
  let lastCheckpoint = opened.lastCheckpoint;
  const record = async (line: MetricsLineV1): Promise<void> => {
    await metrics?.append(line);
  };
  // Replay files are written before the metrics line that announces them (see replay-record.ts).
  const replay = async (kind: 'train' | 'eval', iteration: number, episodes: ReplayEpisodeV1[]) => {
    if (runDir !== null) await writeEpisodes(runDir, { kind, iteration, episodes });
  };
  yield { type: 'run-start', runDir, startIteration, iterations: config.iterations, resumedFrom, config };

  let lastEval: EvalStatsV1 | null = null;
  if (config.evaluation?.atStart && startIteration === 0) {
    const evaluated = await evaluationPhase(options, config, -1, 0);
    lastEval = evaluated.stats;
    await replay('eval', -1, evaluated.episodes);
    await record({ type: 'eval', ...lastEval });
    yield { type: 'eval-end', ...lastEval };
  }

  for (let iteration = startIteration; iteration < config.iterations; iteration++) {
    throwIfAborted(options.signal);
    yield { type: 'iteration-start', iteration };
    const { batch, stats } = await rolloutPhase(options, config, iteration);
    await record({ type: 'rollout', ...stats });
    yield { type: 'rollout-end', batch, ...stats };

    throwIfAborted(options.signal);
    const { stats: update, advantages } = await updatePhase(
      options,
      config,
      iteration,
      batch,
      lastCheckpoint,
    );
    await replay(
      'train',
      iteration,
      replayEpisodes(batch, 'train', { sample: REPLAY_TRAIN_SAMPLE, advantages }),
    );
    await record({ type: 'update', ...update });
    yield { type: 'update-end', ...update };

    const last = iteration === config.iterations - 1;
    if (config.evaluation && ((iteration + 1) % config.evaluation.every === 0 || last)) {
      const evaluated = await evaluationPhase(options, config, iteration, iteration + 1);
      lastEval = evaluated.stats;
      await replay('eval', iteration, evaluated.episodes);
      await record({ type: 'eval', ...lastEval });
      yield { type: 'eval-end', ...lastEval };
    }
    if (runDir !== null && metrics !== null && ((iteration + 1) % config.checkpointEvery === 0 || last)) {
      const saved = await checkpointPhase(options, config, runDir, metrics, iteration);
      lastCheckpoint = saved.dir;
      yield { type: 'checkpoint-saved', iteration, dir: saved.dir, pruned: saved.pruned };
    }
  }

  const completed = Math.max(startIteration, config.iterations);
  yield { type: 'run-end', iterations: completed, lastCheckpoint, seconds: (now() - started) / 1000 };
  return { iterations: completed, lastCheckpoint, lastEval };
}

/** Promise wrapper of `iterateTraining`; `onEvent` sees every event. */
export async function runTraining<S, A>(
  options: TrainingOptions<S, A> & { readonly onEvent?: (event: TrainingEvent) => void },
): Promise<TrainingResultV1> {
  const { onEvent, ...rest } = options;
  const iterator = iterateTraining(rest);
  for (;;) {
    const next = await iterator.next();
    if (next.done) return next.value;
    onEvent?.(next.value);
  }
}

export const checkpointStatePath = (dir: string): string => join(dir, 'state.json');
