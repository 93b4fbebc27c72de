/**
 * A run directory's `machine.json` (`mage-rl/run-machines@1`): the processes that trained the run, one per
 * start or resume, each with the iteration it started at, when, the machine it ran on (`describeMachine`)
 * and the code it ran (`describeCode`). Runs on the same config and seed differ across CPUs and commits,
 * so a reader compares runs only when their machines and code match. The file is not part of config.json: a resume compares that record
 * path by path, and a resume on another machine stays allowed. See architecture/records.md.
 */

import { z } from 'zod';
import { pathExists, readJsonChecked, writeJsonAtomic } from '../io';
import type { CodeV1, MachineV1 } from '../machine';
import { runPaths } from './run-dir';

export const RUN_MACHINES_FORMAT = 'mage-rl/run-machines@1';

/** One process that trained the run. */
export interface RunProcessV1 {
  /** The first iteration it trained: 0 for a start, the resumed checkpoint's next iteration for a resume. */
  readonly startIteration: number;
  /**
   * The iteration count it trained towards (`train.iterations` of that process): a resume with a larger
   * `--iterations` extends the run, which `config.json` (the record a resume compares) does not show.
   * Absent from records written before the field existed.
   */
  readonly iterations?: number;
  /** When it started (ISO 8601). */
  readonly started: string;
  readonly machine: MachineV1;
  /**
   * The code it ran (`describeCode`: commit, dirty flag, package versions); absent from records written
   * before the field existed. The metrics lines from `startIteration` on, up to the next process's, are
   * this code's.
   */
  readonly code?: CodeV1;
}

/** What `machine.json` holds. */
export interface RunMachinesV1 {
  readonly format: typeof RUN_MACHINES_FORMAT;
  /** Oldest first; every one's `startIteration` is above the one before it. */
  readonly processes: readonly RunProcessV1[];
}

const machineSchema = z
  .object({
    cpu: z.string(),
    cores: z.number(),
    memoryGiB: z.number(),
    simd: z.array(z.string()).optional(),
    platform: z.string(),
    node: z.string(),
    runtime: z.record(z.string(), z.string()).optional(),
  })
  .loose();

const codeSchema = z
  .object({
    commit: z.string().nullable(),
    dirty: z.boolean().nullable(),
    noCommit: z.enum(['installed package', 'no git', 'not a git checkout']).optional(),
    packages: z.record(z.string(), z.string()),
  })
  .loose();

const runMachinesSchema = z
  .object({
    format: z.literal(RUN_MACHINES_FORMAT),
    processes: z.array(
      z
        .object({
          startIteration: z.number().int().min(0),
          iterations: z.number().int().min(0).optional(),
          started: z.string(),
          machine: machineSchema,
          code: codeSchema.optional(),
        })
        .loose(),
    ),
  })
  .loose();

/**
 * The `machine.json` of `runDir`; null when there is none (runs written before the file existed). A
 * damaged or foreign file is a `MageError` naming it.
 */
export async function readRunMachines(runDir: string): Promise<RunMachinesV1 | null> {
  const path = runPaths(runDir).machines;
  if (!(await pathExists(path))) return null;
  return (await readJsonChecked(path, {
    what: 'the record of the machines that trained the run',
    fix: 'delete it: it only describes the machines, and the next resume starts a new one',
    schema: runMachinesSchema,
  })) as RunMachinesV1;
}

/**
 * Records the process starting to train `runDir` at `entry.startIteration` (atomically). A start writes a
 * list of one. A resume appends to the saved list, less the processes that started at or after this one's
 * start iteration: their work ended before any checkpoint the run now continues from, and the metrics
 * they wrote were cut off, so nothing of theirs is left in the run. A missing or unreadable saved list
 * starts a new one: the record describes the run, it never stops one.
 */
export async function recordRunProcess(
  runDir: string,
  entry: RunProcessV1,
  options: { readonly resume: boolean },
): Promise<void> {
  let earlier: readonly RunProcessV1[] = [];
  if (options.resume) {
    try {
      earlier = (await readRunMachines(runDir))?.processes ?? [];
    } catch {
      earlier = [];
    }
  }
  const record: RunMachinesV1 = {
    format: RUN_MACHINES_FORMAT,
    processes: [...earlier.filter((p) => p.startIteration < entry.startIteration), entry],
  };
  await writeJsonAtomic(runPaths(runDir).machines, record);
}
