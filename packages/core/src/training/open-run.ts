/** Opening a run directory: a fresh start, or a resume from its latest complete checkpoint. */

import { ConfigError } from '../errors';
import { pathExists, readJsonFile, writeJsonAtomic } from '../io';
import type { JsonObject } from '../json';
import type { PopulationV1 } from '../population';
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

/** Differences that forbid a resume (everything but the iteration count and `extra`). */
function resumeDiff(saved: unknown, current: RunConfigRecordV1): string[] {
  const strip = (c: unknown): unknown => {
    if (typeof c !== 'object' || c === null) return c;
    const { training, extra: _extra, ...rest } = c as Record<string, unknown>;
    const { iterations: _iterations, ...t } = (training ?? {}) as Record<string, unknown>;
    return JSON.parse(JSON.stringify({ ...rest, training: t }));
  };
  return jsonDiff(strip(saved), strip(current));
}

/**
 * Prepares `options.runDir` (nothing without one): refuses a non-empty directory unless resuming,
 * refuses a resume whose configuration or seed differs, restores the learner and memory state of the
 * latest complete checkpoint, cuts metrics.jsonl back to what that checkpoint covers, writes config.json.
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
  if (options.resume && (await pathExists(paths.config))) {
    const diff = resumeDiff(await readJsonFile(paths.config), configJson);
    if (diff.length > 0) {
      throw new ConfigError(
        `Cannot resume '${runDir}': the configuration differs from the saved config.json at ${diff.join(', ')}.`,
        { path: diff[0] as string, context: { runDir, differences: diff } },
      );
    }
  } else if (!options.resume) {
    await assertFreshRunDir(runDir);
  }
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
    await truncateMetrics(paths.metrics, 0);
    opened = {
      startIteration: 0,
      resumedFrom: null,
      lastCheckpoint: null,
      metrics: metricsWriter(paths.metrics, 0),
    };
  }
  await writeJsonAtomic(paths.config, configJson);
  return opened;
}
