/**
 * One writer per run directory: `<runDir>/.mage-lock` holds `{ pid, hostname, started }` of the process
 * that writes the run. A second process is refused with a message naming the holder. A lock left by a
 * killed process (SIGKILL, power cut) is stale when its host is this machine and its pid is no longer
 * alive; it is then taken over. It is taken once per run: a caller that holds it around more than the
 * training loop (the trainer: warm start, training and report) passes it to the loop as `runLock`, and a
 * second `lockRunDir` of the same directory is refused, in this process too.
 */

import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, IoError } from '@mage-rl/spec';
import { z } from 'zod';
import { fsyncDir, tempSibling } from '../io';
import { parseJsonChecked } from '../io/read-checked';

export const RUN_LOCK_FILE = '.mage-lock';

export interface RunLock {
  readonly path: string;
  /** Releases the lock: removes the file. */
  release(): Promise<void>;
}

const lockSchema = z.object({
  pid: z.number().int().positive(),
  hostname: z.string(),
  started: z.string(),
});
type LockRecord = z.output<typeof lockSchema>;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readLock(path: string): Promise<LockRecord | 'missing' | 'corrupt'> {
  let text: string;
  try {
    text = await fs.readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw new IoError(`Could not read the run lock '${path}': ${(error as Error).message}`, { cause: error });
  }
  try {
    return parseJsonChecked(text, path, { what: 'run lock', fix: '', schema: lockSchema });
  } catch {
    return 'corrupt';
  }
}

/** Creates the lock file with our record, atomically and only if none exists (false when one does). */
async function tryCreate(path: string): Promise<boolean> {
  const temp = tempSibling(path);
  const record: LockRecord = { pid: process.pid, hostname: hostname(), started: new Date().toISOString() };
  try {
    await fs.writeFile(temp, `${JSON.stringify(record)}\n`);
    // link() fails with EEXIST when the lock exists: the check and the creation are one step.
    await fs.link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new IoError(`Could not create the run lock '${path}': ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    await fs.rm(temp, { force: true }).catch(() => undefined);
  }
}

function refuse(runDir: string, path: string, holder: LockRecord | 'corrupt'): ConfigError {
  const who =
    holder === 'corrupt'
      ? 'an unreadable lock file'
      : `process ${holder.pid} on ${holder.hostname} (since ${holder.started})`;
  const fix =
    holder !== 'corrupt' && holder.hostname === hostname()
      ? `wait for it to finish or stop it (kill ${holder.pid})`
      : `if no process uses the run any more, delete '${path}'`;
  return new ConfigError(
    `Run directory '${runDir}' is in use by ${who}: two writers would mix its metrics and checkpoints. ${fix[0]?.toUpperCase()}${fix.slice(1)}, or choose another run directory.`,
    { path: 'runDir', context: { runDir, lock: path } },
  );
}

/**
 * Moves the stale lock aside under a unique name, so two processes taking it over cannot both win; if
 * what was moved is not the stale record (another process took the lock over meanwhile), it is put back.
 */
async function removeStale(path: string, stale: LockRecord): Promise<void> {
  const aside = tempSibling(path);
  try {
    await fs.rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = await readLock(aside);
  if (typeof moved === 'object' && (moved.pid !== stale.pid || moved.started !== stale.started)) {
    await fs.link(aside, path).catch(() => undefined);
  }
  await fs.rm(aside, { force: true });
}

/** The lock file of `runDir` (absolute). */
export function runLockPath(runDir: string): string {
  return resolve(join(runDir, RUN_LOCK_FILE));
}

/**
 * Takes the lock of `runDir` (creating the directory), or throws a `ConfigError` naming the process that
 * holds it. A lock of a dead process on this host is taken over.
 */
export async function lockRunDir(runDir: string): Promise<RunLock> {
  const path = runLockPath(runDir);
  await fs.mkdir(runDir, { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await tryCreate(path)) {
      await fsyncDir(runDir);
      return { path, release: () => fs.rm(path, { force: true }) };
    }
    const holder = await readLock(path);
    if (holder === 'missing') continue;
    const stale = holder !== 'corrupt' && holder.hostname === hostname() && !alive(holder.pid);
    if (holder === 'corrupt' || !stale) throw refuse(runDir, path, holder);
    await removeStale(path, holder);
  }
  throw refuse(runDir, path, 'corrupt');
}

/** Runs `work` holding the lock of `runDir` (nothing to lock without one); `work` gets the lock. */
export async function withRunLock<T>(
  runDir: string | null | undefined,
  work: (lock: RunLock | null) => Promise<T>,
): Promise<T> {
  if (runDir === null || runDir === undefined) return work(null);
  const lock = await lockRunDir(runDir);
  try {
    return await work(lock);
  } finally {
    await lock.release();
  }
}
