import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { iterateTraining, runTraining } from './iterate-training';
import { nimLearner, nimTrainingOptions } from './nim-training.test-helper';
import { EPISODES_FORMAT, type EpisodesRecordV1, REPLAY_TRAIN_SAMPLE } from './replay-record';

const tempDir = () => mkdtemp(join(tmpdir(), 'mage-replay-'));
const readRecord = async (runDir: string, name: string): Promise<EpisodesRecordV1> =>
  JSON.parse(await readFile(join(runDir, 'episodes', name), 'utf8')) as EpisodesRecordV1;

describe('replay record (episodes/)', () => {
  it('writes a bounded sample of every iteration with advantages, and every evaluation episode', async () => {
    const runDir = await tempDir();
    await runTraining(
      nimTrainingOptions(nimLearner(), {
        iterations: 3,
        runDir,
        rollout: { groups: 6 },
        evaluation: { every: 2, atStart: true, episodes: 3, inDomain: { opponents: ['random'] } },
      }),
    );
    expect((await readdir(join(runDir, 'episodes'))).sort()).toEqual([
      'eval-000001.json',
      'eval-000002.json',
      'eval-start.json',
      'train-000000.json',
      'train-000001.json',
      'train-000002.json',
    ]);
    const train = await readRecord(runDir, 'train-000001.json');
    expect(train).toMatchObject({ format: EPISODES_FORMAT, kind: 'train', iteration: 1 });
    // One slot of REPLAY_TRAIN_SAMPLE of the 6 groups, each with its attempts and every turn.
    expect(train.episodes).toHaveLength(REPLAY_TRAIN_SAMPLE);
    expect(new Set(train.episodes.map((e) => e.group)).size).toBe(REPLAY_TRAIN_SAMPLE);
    for (const e of train.episodes) {
      expect(e.suite).toBe('train');
      expect(e.turns.length).toBeGreaterThan(0);
      expect(e.turns.every((t) => typeof t.advantage === 'number')).toBe(true);
      expect(e.attempts.length).toBeGreaterThan(0);
      expect(e.turns.every((t) => t.observation.length > 0)).toBe(true);
    }
    expect(train.episodes.flatMap((e) => e.turns).some((t) => t.advantage !== 0)).toBe(true);
    const evalRecord = await readRecord(runDir, 'eval-start.json');
    expect(evalRecord).toMatchObject({ kind: 'eval', iteration: -1 });
    expect(evalRecord.episodes).toHaveLength(3);
    expect(evalRecord.episodes.every((e) => e.suite === 'inDomain')).toBe(true);
    expect(evalRecord.episodes.flatMap((e) => e.turns).every((t) => t.advantage === null)).toBe(true);
  });

  it('a resumed run rewrites the episodes of the iterations it plays again, equal to an uninterrupted run', async () => {
    const options = (runDir: string) =>
      nimTrainingOptions(nimLearner(), { iterations: 4, runDir, checkpoints: { every: 2 } });
    const full = await tempDir();
    await runTraining(options(full));
    const cut = await tempDir();
    for await (const e of iterateTraining(options(cut))) {
      if (e.type === 'update-end' && e.iteration === 2) break;
    }
    await runTraining({ ...options(cut), resume: true });
    for (const name of await readdir(join(full, 'episodes'))) {
      expect(await readRecord(cut, name)).toEqual(await readRecord(full, name));
    }
  });
});
