/** Opening a run directory: a fresh start, or a resume from its latest complete checkpoint. */

import { promises as fs } from 'node:fs';
import type { JsonObject, PopulationV1 } from '@mage-rl/spec';
import { CheckpointError, ConfigError } from '@mage-rl/spec';
import { z } from 'zod';
import { pathExists, readJsonChecked, writeJsonAtomic } from '../io';
import { describeCode, describeMachine } from '../machine';
import type { ResolvedTrainingConfig, TrainingOptions } from './options';
import {
  assertFreshRunDir,
  cleanRunDir,
  jsonDiff,
  latestCheckpoint,
  type MetricsWriter,
  metricsWriter,
  pointLatest,
  RUN_CONFIG_FORMAT,
  runPaths,
  truncateMetrics,
} from './run-dir';
import { recordRunProcess } from './run-machines';

/** Where a run starts: iteration, the checkpoint it resumed from, and its metrics writer. */
export interface OpenedRun {
  readonly startIteration: number;
  readonly resumedFrom: { readonly iteration: number; readonly dir: string } | null;
  readonly lastCheckpoint: string | null;
  readonly metrics: MetricsWriter | null;
}

/** What config.json records (`mage-rl/run-config@1`). */
export interface RunConfigRecordV1 {
  readonly format: typeof RUN_CONFIG_FORMAT;
  readonly training: ResolvedTrainingConfig;
  readonly env: { readonly id: string; readonly options: unknown };
  readonly learner: string;
  readonly memory: string;
  readonly population: PopulationV1 | null;
  readonly opponents: readonly string[] | null;
  /** The caller's own record of the run (the CLI: the whole resolved config and the warm start). */
  readonly extra: JsonObject | null;
}

function runConfig<S, A>(
  options: TrainingOptions<S, A>,
  training: ResolvedTrainingConfig,
): RunConfigRecordV1 {
  return {
    format: RUN_CONFIG_FORMAT,
    training,
    env: { id: options.env.id, options: options.env.options },
    learner: options.learner.id,
    memory: options.memory.id,
    population: options.population ?? null,
    opponents: options.opponents ?? null,
    extra: options.config ?? null,
  };
}

/**
 * Paths of the loop's own run record (and everything under them) that may change on resume; they do not
 * forbid it, and the saved config.json keeps its original value (more iterations extend a run without
 * rewriting its record). Paths inside the caller's record (`extra`) are the caller's to name
 * (`resumeSafePaths`).
 */
export const RESUME_SAFE_PATHS: readonly string[] = [
  'training.iterations',
  // The evaluation period: a run that evaluates only after its last iteration records its iteration count
  // here, so extending the run changes it. Evaluations play their own tasks; only a retrieval memory's store
  // (which evaluations add to) makes the training after a changed period differ from the uninterrupted run.
  'training.evaluation.every',
];

const resumeSafe =
  (extraSafe: readonly string[]) =>
  (path: string): boolean =>
    [...RESUME_SAFE_PATHS, ...extraSafe.map((p) => `extra.${p}`)].some(
      (safe) => path === safe || path.startsWith(`${safe}.`),
    );

const recordSchema = z.object({ format: z.literal(RUN_CONFIG_FORMAT) }).loose();

/** The saved config.json of `runDir`, checked to be a run record. */
export async function readRunConfig(runDir: string): Promise<Record<string, unknown>> {
  return readJsonChecked(runPaths(runDir).config, {
    what: "the run's configuration record",
    fix: 'it is not the record of a mage-rl run (or it is damaged): choose another run directory, or move the file away to start a new run here',
    schema: recordSchema,
  });
}

/**
 * Differences between the saved run record and the current one that forbid a resume: every path but the
 * `RESUME_SAFE_PATHS` and the caller's `extraSafe` paths inside its record, compared over the top-level
 * parts `current` has. Paths inside the caller's record (`extra`) come first and without their prefix, as
 * the user knows them (`advantage.metaReward`).
 */
export function resumeDifferences(
  saved: unknown,
  current: Partial<RunConfigRecordV1>,
  extraSafe: readonly string[] = [],
): string[] {
  const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null));
  const savedObject = (typeof saved === 'object' && saved !== null ? saved : {}) as Record<string, unknown>;
  const keys = Object.keys(current);
  const diff = jsonDiff(
    plain(Object.fromEntries(keys.map((k) => [k, savedObject[k]]))),
    plain(current),
  ).filter((path) => !resumeSafe(extraSafe)(path));
  const inExtra = diff.filter((p) => p.startsWith('extra.')).map((p) => p.slice('extra.'.length));
  return [...inExtra, ...diff.filter((p) => !p.startsWith('extra.'))];
}

/**
 * Refuses a resume whose configuration differs from the run's saved config.json (nothing to check when
 * there is none). Callers that do expensive work before training (a warm start) call it first with the
 * parts of the record they know, and the paths of their record that may change (`resumeSafePaths`).
 */
export async function checkResumeConfig(
  runDir: string,
  current: Partial<RunConfigRecordV1>,
  extraSafe: readonly string[] = [],
): Promise<void> {
  if (!(await pathExists(runPaths(runDir).config))) return;
  const diff = resumeDifferences(await readRunConfig(runDir), current, extraSafe);
  if (diff.length > 0) {
    const shown = diff.slice(0, 8).join(', ') + (diff.length > 8 ? `, and ${diff.length - 8} more` : '');
    throw new ConfigError(
      `Cannot resume '${runDir}': the configuration differs from its config.json at ${shown}. Resume with the settings the run was started with (only the iteration count may change), or start a new run in another directory.`,
      { path: diff[0] as string, context: { runDir, differences: diff } },
    );
  }
}

/**
 * Metrics without a checkpoint are resumable only when they stop at or before the iteration of the first
 * checkpoint (a run killed before that checkpoint was complete, redone identically). A line of a later
 * iteration means checkpoints were written and then removed: restarting would wipe the run's record.
 */
async function assertNoLostCheckpoints(metricsPath: string, config: ResolvedTrainingConfig): Promise<void> {
  if (!(await pathExists(metricsPath))) return;
  const firstDue = Math.min(config.checkpointEvery, Math.max(1, config.iterations)) - 1;
  const text = await fs.readFile(metricsPath, 'utf8');
  const later = text.split('\n').filter((line) => {
    try {
      const iteration = (JSON.parse(line) as { iteration?: unknown } | null)?.iteration;
      return typeof iteration === 'number' && iteration > firstDue;
    } catch {
      return false;
    }
  });
  if (later.length > 0) {
    throw new CheckpointError(
      `Cannot resume: '${metricsPath}' records iterations after ${firstDue}, the first checkpoint, but the run has no checkpoint to continue from (were the checkpoints deleted?). Restore the checkpoints, or move metrics.jsonl away to train the run again from the start.`,
      { context: { path: metricsPath } },
    );
  }
}

/**
 * Prepares `options.runDir` (nothing without one): refuses a directory holding a run or run files unless
 * resuming, refuses a resume whose configuration or seed differs, restores the learner and memory state of
 * the latest complete checkpoint, cuts metrics.jsonl back to what that checkpoint covers, writes
 * config.json (a resume keeps the saved one) and records this process, its machine and its code in
 * machine.json
 * (a resume with nothing left to train adds nothing). The caller holds the run-directory lock.
 */
export async function openRun<S, A>(
  options: TrainingOptions<S, A>,
  config: ResolvedTrainingConfig,
): Promise<OpenedRun> {
  const runDir = options.runDir ?? null;
  if (runDir === null) return { startIteration: 0, resumedFrom: null, lastCheckpoint: null, metrics: null };
  const paths = runPaths(runDir);
  const configJson = runConfig(options, config);
  await cleanRunDir(runDir);
  const hasRecord = await pathExists(paths.config);
  if (options.resume) await checkResumeConfig(runDir, configJson, options.resumeSafePaths);
  else await assertFreshRunDir(runDir);
  const checkpoint = options.resume ? await latestCheckpoint(runDir) : null;
  let opened: OpenedRun;
  if (checkpoint) {
    if (checkpoint.state.seed !== config.seed) {
      throw new ConfigError(
        `Cannot resume '${runDir}': its checkpoint was written with seed ${String(checkpoint.state.seed)}, not ${String(config.seed)}.`,
        { path: 'seed' },
      );
    }
    await options.learner.load(checkpoint.dir);
    if (options.memoryState && checkpoint.state.memory !== null) {
      options.memoryState.restore(checkpoint.state.memory);
    }
    await truncateMetrics(paths.metrics, checkpoint.state.metricsLines);
    // A run killed between renaming a checkpoint into place and rewriting the pointer left latest.json
    // one checkpoint behind; point it at the one resumed from (a finished run has nothing left to write).
    await pointLatest(runDir, checkpoint.iteration);
    opened = {
      startIteration: checkpoint.state.nextIteration,
      resumedFrom: { iteration: checkpoint.iteration, dir: checkpoint.dir },
      lastCheckpoint: checkpoint.dir,
      metrics: metricsWriter(paths.metrics, checkpoint.state.metricsLines),
    };
  } else {
    if (options.resume) await assertNoLostCheckpoints(paths.metrics, config);
    await truncateMetrics(paths.metrics, 0);
    opened = {
      startIteration: 0,
      resumedFrom: null,
      lastCheckpoint: null,
      metrics: metricsWriter(paths.metrics, 0),
    };
  }
  if (!(options.resume && hasRecord)) await writeJsonAtomic(paths.config, configJson);
  if (!options.resume || opened.startIteration < config.iterations) {
    await recordRunProcess(
      runDir,
      {
        startIteration: opened.startIteration,
        iterations: config.iterations,
        started: new Date().toISOString(),
        machine: describeMachine(options.runtime ? { runtime: options.runtime } : {}),
        code: options.code ?? describeCode(),
      },
      { resume: options.resume === true },
    );
  }
  return opened;
}
