import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUN_CONFIG_FORMAT } from '@mage-rl/core';
import { afterAll, describe, expect, it } from 'vitest';
import { trainedWith } from './load-policy';

const root = await mkdtemp(join(tmpdir(), 'mage-trained-with-'));
afterAll(() => rm(root, { recursive: true, force: true }));

describe('trainedWith', () => {
  it("is a run's own method and memory; anything but a run is undefined (it plays as reflexion)", async () => {
    const run = join(root, 'gigpo-run');
    await mkdir(run, { recursive: true });
    const record = (extra: unknown) => JSON.stringify({ format: RUN_CONFIG_FORMAT, extra });
    await writeFile(join(run, 'config.json'), record({ method: 'gigpo', rollout: { memory: 'none' } }));
    expect(await trainedWith(run)).toEqual({ method: 'gigpo', memory: 'none' });
    // A run trained with another memory than its method's keeps it.
    await writeFile(join(run, 'config.json'), record({ method: 'mage', rollout: { memory: 'history' } }));
    expect(await trainedWith(run)).toEqual({ method: 'mage', memory: 'history' });
    for (const other of ['teacher', 'http://127.0.0.1:1/v1', root, join(root, 'missing')]) {
      expect(await trainedWith(other)).toBeUndefined();
    }
  });
});
