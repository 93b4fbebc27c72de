import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkResumeConfig } from '@mage-rl/core';
import { resolveTrainConfig, type TrainConfig } from '@mage-rl/recipes';
import { afterAll, describe, expect, it } from 'vitest';
import { resumeSafePathsOf } from '../train/train';
import { modelSourceOf, runRecordFor, runRecordOf } from './run-record';

/**
 * Run directories as older versions wrote them, kept beside core's reader of the record (see core's
 * `run-record.test.ts`): one from before the `learner` and `memory` sections, and one from before
 * `warmStartDir`, which kept the warm-start directory in `warmStart`.
 */
const fixture = (name: string) =>
  fileURLToPath(new URL(`../../../core/src/training/__fixtures__/run-records/${name}`, import.meta.url));
const BEFORE_LEARNER = fixture('before-learner-section');
const WARM_START_STRING = fixture('warm-start-string');
const WARM_START = '/warm-starts/tictactoe-smoke';

const root = await mkdtemp(join(tmpdir(), 'mage-run-record-'));
afterAll(() => rm(root, { recursive: true, force: true }));

describe("the trainer's part of the run record", () => {
  it('resolves a run to its warm start under its latest checkpoint, and anything else to itself', async () => {
    for (const run of [BEFORE_LEARNER, WARM_START_STRING]) {
      expect(await modelSourceOf(run)).toEqual({
        modelDir: WARM_START,
        checkpointDir: join(run, 'checkpoints', 'iter-000001'),
      });
    }
    expect(await modelSourceOf(root)).toEqual({ modelDir: root });
  });

  it('lets a record from before the learner and memory sections resume the run it records', async () => {
    const tictactoe = (advantage: object = {}) =>
      resolveTrainConfig({ advantage }, { preset: 'smoke', env: 'tictactoe', method: 'mage', seed: 1 });
    // Resumes BEFORE_LEARNER's run with `config`; the resume-safe paths are those of `safe`.
    const resume = async (config: TrainConfig, safe: TrainConfig = config) =>
      checkResumeConfig(
        BEFORE_LEARNER,
        { extra: runRecordOf(config, WARM_START) },
        await resumeSafePathsOf(BEFORE_LEARNER, safe),
      );
    // The record predates `penaltyScope`, which Tic-Tac-Toe now defaults to 'episode-and-step': its run
    // resumes at the value it computed with.
    const config = tictactoe({ penaltyScope: 'episode' });
    await expect(resume(config)).resolves.toBeUndefined();
    // Another setting is still refused.
    await expect(resume({ ...config, ppo: { ...config.ppo, lr: 0.5 } }, config)).rejects.toThrow(
      /differs from its config\.json at ppo\.lr/,
    );
    // A setting added since resumes at the value the recorded run computed with, and only at that value.
    const scored = { ...config, advantage: { ...config.advantage, episodeScore: 'return' as const } };
    await expect(resume(scored)).rejects.toThrow(/differs from its config\.json at advantage\.episodeScore/);
    // At today's Tic-Tac-Toe default it is refused, naming the setting to pass.
    await expect(resume(tictactoe())).rejects.toThrow(
      /differs from its config\.json at advantage\.penaltyScope/,
    );
  });

  it('stores the warm start relative to the working directory when inside it, and finds it from elsewhere', async () => {
    const project = join(root, 'project');
    const run = join(project, 'runs', 'r');
    const warm = join(project, '.mage-cache', 'w');
    await cp(BEFORE_LEARNER, run, { recursive: true });
    await mkdir(warm, { recursive: true });
    const config = resolveTrainConfig({}, { preset: 'smoke', env: 'tictactoe', method: 'mage', seed: 1 });
    const cwd = process.cwd();
    const inDir = async <T>(dir: string, f: () => Promise<T>): Promise<T> => {
      process.chdir(dir);
      try {
        return await f();
      } finally {
        process.chdir(cwd);
      }
    };
    // The run's saved record names its warm start absolute (as runs did before): a resume keeps that form.
    expect((await inDir(project, () => runRecordFor(run, config, WARM_START))).warmStartDir).toBe(WARM_START);
    // A new record stores it relative to the working directory; one outside it stays absolute.
    const recordPath = join(run, 'config.json');
    const saved = JSON.parse(await readFile(recordPath, 'utf8')) as { extra: Record<string, unknown> };
    await writeFile(recordPath, JSON.stringify({ ...saved, extra: { ...saved.extra, warmStartDir: null } }));
    expect((await inDir(project, () => runRecordFor(run, config, warm))).warmStartDir).toBe('.mage-cache/w');
    expect((await inDir(join(project, 'runs'), () => runRecordFor(run, config, warm))).warmStartDir).toBe(
      warm,
    );
    // Read from another directory, the relative warm start is found above the run directory.
    await writeFile(
      recordPath,
      JSON.stringify({ ...saved, extra: { ...saved.extra, warmStartDir: '.mage-cache/w' } }),
    );
    const expected = { modelDir: warm, checkpointDir: join(run, 'checkpoints', 'iter-000001') };
    expect(await inDir(tmpdir(), () => modelSourceOf(run))).toEqual(expected);
    expect(await inDir(project, () => modelSourceOf('runs/r'))).toEqual(expected);
    // The same relative form compares equal on a resume from the project directory.
    expect((await inDir(project, () => runRecordFor(run, config, warm))).warmStartDir).toBe('.mage-cache/w');
    // Gone: an error naming the recorded path, not a load of some other directory.
    await rm(warm, { recursive: true });
    await expect(inDir(tmpdir(), () => modelSourceOf(run))).rejects.toThrow(
      /started from the warm start '\.mage-cache\/w'/,
    );
  });
});
