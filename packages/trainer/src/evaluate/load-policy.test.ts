import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUN_CONFIG_FORMAT } from '@mage-rl/core';
import { afterAll, describe, expect, it } from 'vitest';
import { trainedWith } from './load-policy';

const root = await mkdtemp(join(tmpdir(), 'mage-trained-with-'));
afterAll(() => rm(root, { recursive: true, force: true }));

describe('trainedWith', () => {
  it("is a run's own method, memory, env and task; anything but a run is undefined (it plays as reflexion)", async () => {
    const run = join(root, 'gigpo-run');
    await mkdir(run, { recursive: true });
    const record = (extra: unknown) => JSON.stringify({ format: RUN_CONFIG_FORMAT, extra });
    const env = { id: 'kuhn-poker', options: { mode: 'new-deal' } };
    const evaluation = {
      envOptions: { revealShowdown: false },
      inDomain: ['aggressive'],
      earlyStop: false,
      episodes: 9,
      temperature: 0.5,
    };
    await writeFile(
      join(run, 'config.json'),
      record({ method: 'gigpo', env, eval: evaluation, rollout: { memory: 'none' } }),
    );
    expect(await trainedWith(run)).toEqual({
      method: 'gigpo',
      memory: 'none',
      env: 'kuhn-poker',
      // The env options and the evaluation's env options, opponents and early stop; not its episodes or sampling.
      task: {
        env: { options: { mode: 'new-deal' } },
        eval: { envOptions: { revealShowdown: false }, inDomain: ['aggressive'], earlyStop: false },
      },
    });
    // A run trained with another memory than its method's keeps it.
    await writeFile(
      join(run, 'config.json'),
      record({ method: 'mage', env, rollout: { memory: 'history' } }),
    );
    expect(await trainedWith(run)).toMatchObject({ method: 'mage', memory: 'history' });
    for (const other of ['teacher', 'http://127.0.0.1:1/v1', root, join(root, 'missing')]) {
      expect(await trainedWith(other)).toBeUndefined();
    }
  });
});
