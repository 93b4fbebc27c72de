import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUN_CONFIG_FORMAT } from '@mage-rl/core';
import { resolveTrainConfig } from '@mage-rl/recipes';
import { afterEach, describe, expect, it } from 'vitest';
import { RESUME_SAFE_CONFIG_PATHS, resumeSafePathsOf } from './train';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function runDirWith(extra: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mage-resume-paths-'));
  dirs.push(dir);
  await writeFile(join(dir, 'config.json'), JSON.stringify({ format: RUN_CONFIG_FORMAT, extra }));
  return dir;
}

describe('resumeSafePathsOf', () => {
  const local = resolveTrainConfig({}, { preset: 'smoke' });
  const tinker = resolveTrainConfig(
    { learner: { backend: 'tinker', tinker: { baseURL: 'http://127.0.0.1:1', baseModel: 'm' } } },
    { preset: 'smoke' },
  );

  it('lets a record from before the learner section resume a local run', async () => {
    const dir = await runDirWith({ train: { iterations: 2 }, advantage: local.advantage, ppo: local.ppo });
    expect(await resumeSafePathsOf(dir, local)).toEqual([...RESUME_SAFE_CONFIG_PATHS, 'learner']);
    // A run that now asks for another backend is still refused by the check.
    expect(await resumeSafePathsOf(dir, tinker)).toEqual(RESUME_SAFE_CONFIG_PATHS);
  });

  it('keeps the learner section checked when the record has one, or there is no record', async () => {
    const dir = await runDirWith({ learner: local.learner, advantage: local.advantage, ppo: local.ppo });
    expect(await resumeSafePathsOf(dir, local)).toEqual(RESUME_SAFE_CONFIG_PATHS);
    expect(await resumeSafePathsOf(join(dir, 'absent'), local)).toEqual(RESUME_SAFE_CONFIG_PATHS);
  });

  it('lets a record from before a setting resume at the value its run computed with, and only that', async () => {
    const { episodeScore: _, ...before } = local.advantage;
    const dir = await runDirWith({ learner: local.learner, advantage: before, ppo: local.ppo });
    expect(await resumeSafePathsOf(dir, local)).toEqual([
      ...RESUME_SAFE_CONFIG_PATHS,
      'advantage.episodeScore',
    ]);
    const scored = { ...local, advantage: { ...local.advantage, episodeScore: 'return' as const } };
    expect(await resumeSafePathsOf(dir, scored)).toEqual(RESUME_SAFE_CONFIG_PATHS);
    const { klUpperEdge: __, ...ppoBefore } = local.ppo;
    const older = await runDirWith({ learner: local.learner, advantage: local.advantage, ppo: ppoBefore });
    expect(await resumeSafePathsOf(older, local)).toEqual([...RESUME_SAFE_CONFIG_PATHS, 'ppo.klUpperEdge']);
    const released = { ...local, ppo: { ...local.ppo, klUpperEdge: 'release-advantaged' as const } };
    expect(await resumeSafePathsOf(older, released)).toEqual(RESUME_SAFE_CONFIG_PATHS);
  });
});
