import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointError, IoError, MageError } from '@mage-rl/spec';
import { describe, expect, it } from 'vitest';
import {
  pathExists,
  readJsonFile,
  removeDirAtomic,
  removeTempEntries,
  writeDirAtomic,
  writeFileAtomic,
  writeJsonAtomic,
} from './atomic';

const tempDir = () => mkdtemp(join(tmpdir(), 'mage-io-'));

describe('atomic file helpers', () => {
  it('writes and replaces files without leaving temporary files', async () => {
    const dir = await tempDir();
    const path = join(dir, 'sub', 'a.json');
    await writeJsonAtomic(path, { a: 1 });
    await writeJsonAtomic(path, { a: 2 });
    expect(await readJsonFile(path)).toEqual({ a: 2 });
    expect(await readdir(join(dir, 'sub'))).toEqual(['a.json']);
  });

  it('reports unreadable and corrupt JSON as CheckpointError', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'bad.json'), '{"a": 1');
    await expect(readJsonFile(join(dir, 'bad.json'))).rejects.toBeInstanceOf(CheckpointError);
    await expect(readJsonFile(join(dir, 'missing.json'))).rejects.toBeInstanceOf(CheckpointError);
  });

  it('wraps write failures in IoError', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'file'), 'x');
    const error = await writeFileAtomic(join(dir, 'file', 'child'), 'y').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IoError);
    expect(MageError.isInstance(error) && error.code).toBe('IO_FAILURE');
  });

  it('builds a directory under a temporary name and renames it into place', async () => {
    const dir = await tempDir();
    const target = join(dir, 'ckpt');
    let seenDuringFill: boolean | undefined;
    await writeDirAtomic(target, async (temp) => {
      seenDuringFill = await pathExists(target);
      await writeFileAtomic(join(temp, 'a.txt'), 'one');
    });
    expect(seenDuringFill).toBe(false);
    expect(await readFile(join(target, 'a.txt'), 'utf8')).toBe('one');
    // Replacing keeps nothing of the old content.
    await writeDirAtomic(target, async (temp) => writeFileAtomic(join(temp, 'b.txt'), 'two'));
    expect(await readdir(target)).toEqual(['b.txt']);
    expect(await readdir(dir)).toEqual(['ckpt']);
  });

  it('leaves the old directory untouched when filling fails', async () => {
    const dir = await tempDir();
    const target = join(dir, 'ckpt');
    await writeDirAtomic(target, async (temp) => writeFileAtomic(join(temp, 'a.txt'), 'one'));
    await expect(
      writeDirAtomic(target, async (temp) => {
        await writeFileAtomic(join(temp, 'half.txt'), 'half');
        throw new Error('disk full');
      }),
    ).rejects.toThrow('disk full');
    expect(await readdir(target)).toEqual(['a.txt']);
    expect(await readdir(dir)).toEqual(['ckpt']);
  });

  it('removes directories and temporary leftovers', async () => {
    const dir = await tempDir();
    await writeDirAtomic(join(dir, 'x'), async (temp) => writeFileAtomic(join(temp, 'f'), 'f'));
    await writeFile(join(dir, '.tmp-left-over'), 'junk');
    expect(await removeTempEntries(dir)).toEqual(['.tmp-left-over']);
    await removeDirAtomic(join(dir, 'x'));
    await removeDirAtomic(join(dir, 'never-existed'));
    expect(await readdir(dir)).toEqual([]);
  });
});
