/**
 * The run directory of a training run:
 *
 * ```
 * <runDir>/config.json                 resolved configuration (atomic)
 * <runDir>/machine.json                the processes that trained the run and their machines (atomic)
 * <runDir>/metrics.jsonl               one JSON line per rollout / update / evaluation
 * <runDir>/checkpoints/iter-NNNNNN/    learner.save(dir) + state.json, renamed into place when complete
 * <runDir>/checkpoints/latest.json     { "iteration": N, "dir": "iter-NNNNNN" } (atomic)
 * ```
 */

import { promises as fs } from 'node:fs';
import { basename, join } from 'node:path';
import type { JsonValue } from '@mage-rl/spec';
import { CheckpointError, ConfigError, IoError } from '@mage-rl/spec';
import { z } from 'zod';
import {
  appendFileDurable,
  pathExists,
  readJsonChecked,
  removeDirAtomic,
  writeDirAtomic,
  writeFileAtomic,
  writeJsonAtomic,
} from '../io';

export const CHECKPOINT_STATE_FORMAT = 'mage-rl/training-checkpoint@1';
export const RUN_CONFIG_FORMAT = 'mage-rl/run-config@1';

/** What `state.json` of a checkpoint holds: everything resume needs besides the learner's own files. */
export interface CheckpointStateV1 {
  readonly format: typeof CHECKPOINT_STATE_FORMAT;
  /** The last completed iteration (0-based). */
  readonly iteration: number;
  readonly nextIteration: number;
  readonly seed: number | string;
  readonly learnerId: string;
  /** Lines of metrics.jsonl written up to and including this iteration. */
  readonly metricsLines: number;
  /** `memoryState.save()` when the run persists memory state, else null. */
  readonly memory: JsonValue;
}

export interface CheckpointRef {
  readonly iteration: number;
  /** Absolute (or runDir-relative, as given) path of the checkpoint directory. */
  readonly dir: string;
  readonly state: CheckpointStateV1;
}

export const checkpointName = (iteration: number): string => `iter-${String(iteration).padStart(6, '0')}`;
const CHECKPOINT_RE = /^iter-(\d{6,})$/;

export function runPaths(runDir: string) {
  const checkpoints = join(runDir, 'checkpoints');
  return {
    config: join(runDir, 'config.json'),
    machines: join(runDir, 'machine.json'),
    metrics: join(runDir, 'metrics.jsonl'),
    checkpoints,
    latest: join(checkpoints, 'latest.json'),
  };
}

const stateSchema = z
  .object({
    format: z.literal(CHECKPOINT_STATE_FORMAT),
    iteration: z.number().int().min(0),
    nextIteration: z.number().int().min(0),
    seed: z.union([z.number(), z.string()]),
    learnerId: z.string(),
    metricsLines: z.number().int().min(0),
    memory: z.json(),
  })
  .loose();

/** Reads and checks `<dir>/state.json`. */
export async function readCheckpointState(dir: string): Promise<CheckpointStateV1> {
  return (await readJsonChecked(join(dir, 'state.json'), {
    what: `state of checkpoint '${basename(dir)}'`,
    fix: `the checkpoint is damaged: delete the directory '${dir}' and resume from the one before it`,
    schema: stateSchema,
  })) as CheckpointStateV1;
}

/** Checkpoint directories present in `runDir`, oldest first (only complete ones can carry the final name). */
export async function listCheckpoints(runDir: string): Promise<{ iteration: number; name: string }[]> {
  let names: string[];
  try {
    names = await fs.readdir(runPaths(runDir).checkpoints);
  } catch {
    return [];
  }
  return names
    .map((name) => ({ name, m: CHECKPOINT_RE.exec(name) }))
    .filter((x): x is { name: string; m: RegExpExecArray } => x.m !== null)
    .map(({ name, m }) => ({ iteration: Number(m[1]), name }))
    .sort((a, b) => a.iteration - b.iteration);
}

const latestSchema = z.object({
  iteration: z.number().int().min(0),
  // A bare checkpoint name: the pointer never leads outside the run's checkpoints directory.
  dir: z.string().regex(CHECKPOINT_RE, 'a checkpoint directory name such as iter-000003'),
});

/**
 * The latest complete checkpoint: the one `latest.json` names, or a newer complete directory (a run killed
 * between renaming the directory into place and rewriting the pointer). A damaged pointer is ignored when
 * a complete checkpoint directory exists (resume rewrites it). Null when there is no checkpoint.
 */
export async function latestCheckpoint(runDir: string): Promise<CheckpointRef | null> {
  const paths = runPaths(runDir);
  const listed = await listCheckpoints(runDir);
  const newest = listed[listed.length - 1];
  let best: { iteration: number; name: string } | null = null;
  if (await pathExists(paths.latest)) {
    try {
      const { iteration, dir } = await readJsonChecked(paths.latest, {
        what: 'the pointer to the latest checkpoint',
        fix: 'delete it; resume then uses the newest complete checkpoint directory',
        schema: latestSchema,
      });
      best = { iteration, name: dir };
    } catch (error) {
      if (!newest) throw error;
    }
  }
  if (newest && (best === null || newest.iteration > best.iteration)) best = newest;
  if (best === null) return null;
  const dir = join(paths.checkpoints, best.name);
  if (!(await pathExists(dir))) {
    if (newest) return latestCheckpointAt(paths.checkpoints, newest.name);
    throw new CheckpointError(
      `'${paths.latest}' names '${best.name}', which does not exist; delete it to start the run over.`,
      { context: { dir } },
    );
  }
  return latestCheckpointAt(paths.checkpoints, best.name);
}

async function latestCheckpointAt(checkpoints: string, name: string): Promise<CheckpointRef> {
  const dir = join(checkpoints, name);
  const state = await readCheckpointState(dir);
  return { iteration: state.iteration, dir, state };
}

/** Appends JSON lines to metrics.jsonl and counts them. */
export interface MetricsWriter {
  readonly lines: number;
  append(record: object): Promise<void>;
  /** fsync the file (before a checkpoint records its line count). */
  sync(): Promise<void>;
}

export function metricsWriter(path: string, lines: number): MetricsWriter {
  let count = lines;
  return {
    get lines() {
      return count;
    },
    async append(record) {
      await appendFileDurable(path, `${JSON.stringify(record)}\n`);
      count++;
    },
    async sync() {
      if (!(await pathExists(path))) return;
      try {
        const handle = await fs.open(path, 'r+');
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
      } catch (error) {
        throw new IoError(`Could not fsync '${path}': ${(error as Error).message}`, { cause: error });
      }
    },
  };
}

/** Keeps the first `lines` lines of metrics.jsonl (atomically); fails if fewer complete lines exist. */
export async function truncateMetrics(path: string, lines: number): Promise<void> {
  let text = '';
  if (await pathExists(path)) text = await fs.readFile(path, 'utf8');
  const all = text.split('\n');
  // The last element is '' after a trailing newline, or a partial line cut by a kill: never complete.
  const complete = all.slice(0, all.length - 1);
  if (complete.length < lines) {
    throw new CheckpointError(
      `metrics.jsonl has ${complete.length} complete lines but the checkpoint recorded ${lines}.`,
      { context: { path } },
    );
  }
  const kept = complete.slice(0, lines);
  kept.forEach((line, i) => {
    try {
      JSON.parse(line);
    } catch (error) {
      throw new CheckpointError(`metrics.jsonl line ${i + 1} is not valid JSON.`, {
        cause: error,
        context: { path },
      });
    }
  });
  const next = kept.length === 0 ? '' : `${kept.join('\n')}\n`;
  if (next !== text) await writeFileAtomic(path, next);
}

/** Points checkpoints/latest.json (atomically) at the checkpoint after `iteration`. */
export async function pointLatest(runDir: string, iteration: number): Promise<void> {
  await writeJsonAtomic(runPaths(runDir).latest, { iteration, dir: checkpointName(iteration) });
}

/**
 * Writes a checkpoint directory atomically (`save(tempDir)` first — it may replace the directory — then
 * state.json), points latest.json at it, and removes the oldest checkpoints beyond `keep`.
 */
export async function writeCheckpoint(args: {
  runDir: string;
  state: CheckpointStateV1;
  save: (dir: string) => Promise<void>;
  keep: number;
}): Promise<{ dir: string; pruned: string[] }> {
  const paths = runPaths(args.runDir);
  const name = checkpointName(args.state.iteration);
  const dir = join(paths.checkpoints, name);
  await writeDirAtomic(dir, async (temp) => {
    await args.save(temp);
    await writeJsonAtomic(join(temp, 'state.json'), args.state);
  });
  await pointLatest(args.runDir, args.state.iteration);
  const listed = await listCheckpoints(args.runDir);
  const pruned: string[] = [];
  for (const entry of listed.slice(0, Math.max(0, listed.length - args.keep))) {
    if (entry.name === name) continue;
    await removeDirAtomic(join(paths.checkpoints, entry.name));
    pruned.push(entry.name);
  }
  return { dir, pruned };
}

/** Removes leftovers of interrupted writes: hidden temporary entries in the run and checkpoint dirs. */
export async function cleanRunDir(runDir: string): Promise<void> {
  const paths = runPaths(runDir);
  for (const dir of [runDir, paths.checkpoints]) {
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch {
      continue;
    }
    for (const entry of names) {
      if (entry.startsWith('.') && entry.includes('tmp-'))
        await fs.rm(join(dir, entry), { recursive: true, force: true });
      if (entry.startsWith('.') && entry.includes('.old-'))
        await fs.rm(join(dir, entry), { recursive: true, force: true });
    }
  }
}

/** Differences between two JSON values, as dotted paths (for resume: config changed?). */
export function jsonDiff(a: unknown, b: unknown, path = ''): string[] {
  if (Object.is(a, b)) return [];
  if (
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    a === null ||
    b === null ||
    Array.isArray(a) !== Array.isArray(b)
  ) {
    return [path || '(root)'];
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const out: string[] = [];
  for (const k of keys) {
    out.push(
      ...jsonDiff(
        (a as Record<string, unknown>)[k],
        (b as Record<string, unknown>)[k],
        path ? `${path}.${k}` : k,
      ),
    );
  }
  return out;
}

/** True when `path` is a mage-rl run record (`config.json` of a run). */
async function isRunRecord(path: string): Promise<boolean> {
  try {
    const text = await fs.readFile(path, 'utf8');
    return (JSON.parse(text) as { format?: unknown } | null)?.format === RUN_CONFIG_FORMAT;
  } catch {
    return false;
  }
}

/**
 * Files a run writes into its directory: a fresh run refuses to start where any of them exists. Not
 * `machine.json`: it only describes the machines of the run the other files hold, and a fresh run
 * replaces it.
 */
export const RUN_FILES = ['config.json', 'metrics.jsonl', 'checkpoints', 'report.md'] as const;

/** Refuses to start a fresh run over an existing one, or over files of the same names the user made. */
export async function assertFreshRunDir(runDir: string): Promise<void> {
  const present: string[] = [];
  for (const name of RUN_FILES) {
    if (name === 'checkpoints') {
      if ((await listCheckpoints(runDir)).length > 0 || (await pathExists(runPaths(runDir).latest)))
        present.push(name);
    } else if (await pathExists(join(runDir, name))) present.push(name);
  }
  if (present.length > 0) {
    const ours =
      present.some((name) => name !== 'config.json' && name !== 'report.md') ||
      (await isRunRecord(join(runDir, 'config.json')));
    const fix = ours
      ? 'continue that run with --resume (`resume: true` in code) or choose another directory'
      : 'these are not files of a mage-rl run: choose another directory, or move them away';
    throw new ConfigError(
      `Run directory '${runDir}' already holds ${present.join(', ')}, which a new run would overwrite; ${fix}.`,
      { path: 'runDir', context: { runDir, present } },
    );
  }
}
