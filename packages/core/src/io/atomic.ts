/**
 * Atomic file helpers, so that a killed run never leaves a half-written file: a reader sees either the
 * old content or the new one, never a mix.
 * Files are written to a temporary sibling, fsynced, renamed over the target, and the directory is
 * fsynced; directories are built under a temporary name and renamed into place once complete.
 */

import { randomBytes } from 'node:crypto';
import { promises as fs, constants as fsConstants } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { JsonValue } from '@mage-rl/spec';
import { IoError } from '@mage-rl/spec';
import { readJsonChecked } from './read-checked';

/** Prefix of temporary files and directories written by these helpers (never a final name). */
export const TEMP_PREFIX = '.tmp-';

function ioError(action: string, path: string, error: unknown): IoError {
  const reason = error instanceof Error ? error.message : String(error);
  return new IoError(`Could not ${action} '${path}': ${reason}`, { cause: error, context: { path } });
}

/** A temporary sibling name of `path` (same directory, so `rename` is atomic). */
export function tempSibling(path: string): string {
  return join(
    dirname(path),
    `${TEMP_PREFIX}${basename(path)}-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
}

/** fsync a directory so a rename inside it survives a power cut (a no-op where directories cannot be opened). */
export async function fsyncDir(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, fsConstants.O_RDONLY);
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EBADF') {
      throw ioError('fsync directory', dir, error);
    }
  } finally {
    await handle?.close();
  }
}

/** Writes `data` to `path` atomically: temporary file, fsync, rename, fsync of the directory. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const temp = tempSibling(path);
  try {
    await fs.mkdir(dirname(path), { recursive: true });
    const handle = await fs.open(temp, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, path);
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw ioError('write', path, error);
  }
  await fsyncDir(dirname(path));
}

/** `JSON.stringify(value, null, 2)` plus a newline, written atomically. */
export async function writeJsonAtomic(path: string, value: JsonValue | object): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Reads and parses a JSON file; a missing or malformed file is a `CheckpointError` naming the path. */
export async function readJsonFile(path: string): Promise<unknown> {
  return readJsonChecked(path, {
    what: 'a JSON record',
    fix: 'restore it from a copy or delete it and run the command again',
  });
}

/** True when `path` exists. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await fs.access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Builds a directory atomically: `fill(tempDir)` writes the content into a fresh temporary sibling,
 * which is then renamed to `dir` (an existing `dir` is moved aside first and removed afterwards).
 * If `fill` throws, nothing changes at `dir`.
 */
export async function writeDirAtomic(dir: string, fill: (tempDir: string) => Promise<void>): Promise<void> {
  const parent = dirname(dir);
  const temp = tempSibling(dir);
  try {
    await fs.mkdir(parent, { recursive: true });
    await fs.mkdir(temp);
  } catch (error) {
    throw ioError('create directory', temp, error);
  }
  try {
    await fill(temp);
    await fsyncDir(temp);
  } catch (error) {
    await fs.rm(temp, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
  let aside: string | undefined;
  try {
    if (await pathExists(dir)) {
      aside = tempSibling(dir);
      await fs.rename(dir, aside);
    }
    await fs.rename(temp, dir);
  } catch (error) {
    await fs.rm(temp, { recursive: true, force: true }).catch(() => undefined);
    throw ioError('rename a directory into', dir, error);
  }
  await fsyncDir(parent);
  if (aside !== undefined) await fs.rm(aside, { recursive: true, force: true });
}

/**
 * Removes a directory so that no reader ever sees it half-deleted under its own name: it is renamed to
 * a temporary sibling first, then deleted.
 */
export async function removeDirAtomic(dir: string): Promise<void> {
  if (!(await pathExists(dir))) return;
  const aside = tempSibling(dir);
  try {
    await fs.rename(dir, aside);
  } catch (error) {
    throw ioError('remove', dir, error);
  }
  await fs.rm(aside, { recursive: true, force: true });
}

/** Deletes leftovers of interrupted atomic writes (entries named `.tmp-*`) directly inside `dir`. */
export async function removeTempEntries(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    await fs.rm(join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/** Appends text to a file (creating it) and optionally fsyncs it. */
export async function appendFileDurable(path: string, text: string, sync = false): Promise<void> {
  try {
    const handle = await fs.open(path, 'a');
    try {
      await handle.appendFile(text);
      if (sync) await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw ioError('append to', path, error);
  }
}
