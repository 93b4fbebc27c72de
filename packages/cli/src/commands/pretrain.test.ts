import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createMageTiny, saveMageTiny } from '@mage-rl/learner';
import { RUN_PRESETS } from '@mage-rl/recipes';
import { buildMageTinyTokenizer, cachedWarmStart, warmStartDir } from '@mage-rl/trainer/internals';
import { describe, expect, it } from 'vitest';
import { runCaptured, runJson, saveTinyModel, useTempDir } from '../testing/cli.test-helper';

describe('mage pretrain', () => {
  const tmp = useTempDir('mage-pretrain-');

  it('reuses the cache entry of the same env, preset and seed instead of pretraining again', async () => {
    const cacheDir = join(tmp.path, 'cache');
    const dir = warmStartDir(cacheDir, { envs: ['tictactoe'], preset: 'smoke', seed: 1 });
    // A finished warm start as pretrainMageTiny records it (weights made up: only the record is read).
    const tokenizer = buildMageTinyTokenizer([]);
    const model = await createMageTiny(tokenizer, { seed: 1, runner: 'local' });
    const results = [
      {
        env: 'tictactoe',
        examples: 12,
        legalMoveRate: 0.75,
        validReflectionRate: 1,
        noteRecall: 0.3,
        passAtK: [0.25, 0.5, 0.5],
        teacherPassAtK: [0.5, 0.75, 1],
      },
    ];
    const lossCurve = [
      { step: 1, loss: 5 },
      { step: 2, loss: 4 },
    ];
    const record = { examples: 12, tokens: 345, lossCurve, results, seconds: 300, peakRssBytes: 1 };
    await saveMageTiny(dir, model, tokenizer, record);
    await model.dispose();

    const r = await runJson<{ cached: boolean; dir: string; examples: number; envs: unknown }>([
      'pretrain',
      '--preset',
      'smoke',
      '--cache-dir',
      cacheDir,
    ]);
    expect(r).toMatchObject({ cached: true, dir, examples: 12, envs: results });
    const text = await runCaptured(['pretrain', '--preset', 'smoke', '--cache-dir', cacheDir]);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^cached .*--force pretrains again\)\nmage-tiny warm start: /);
    expect(text.out).toContain('75.0%');
    // Notes that state 30% of what happened are flagged: nothing RL could teach the policy to read.
    expect(text.out).toContain('30.0%');
    expect(text.out).toContain("warning: the tictactoe warm start's notes state 30% of what happened");
  });

  it('takes warm-start values from --set into the cache key, skips the evaluation at --eval-episodes 0, and refuses other paths', async () => {
    const cacheDir = join(tmp.path, 'cache-set');
    const argv = ['pretrain', '--preset', 'smoke', '--cache-dir', cacheDir, '--set', 'warmStart.epochs=2'];
    const r = await runJson<{ cached: boolean; dir: string; envs: unknown[]; lossCurve: unknown[] }>([
      ...argv,
      '--eval-episodes',
      '0',
    ]);
    const keyed = warmStartDir(cacheDir, {
      envs: ['tictactoe'],
      preset: 'smoke',
      seed: 1,
      warmStart: { epochs: 2 },
    });
    expect(r).toMatchObject({ cached: false, dir: keyed, envs: [] });
    expect(r.dir).not.toBe(warmStartDir(cacheDir, { envs: ['tictactoe'], preset: 'smoke', seed: 1 }));
    expect(r.lossCurve.length).toBeGreaterThan(0);
    const again = await runCaptured(argv);
    expect(again.code).toBe(0);
    expect(again.out).toContain('not evaluated (--eval-episodes 0)');

    const refused = await runCaptured([...argv, '--set', 'rollout.groups=2']);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain(
      'take only warmStart.* and env.options.* (what makes a warm start), got rollout.',
    );
  }, 120_000);

  it('makes a warm start again with warmStart.retryEpochs when its notes recall less than 80%, recording the first', async () => {
    const cacheDir = join(tmp.path, 'cache-retry');
    const argv = ['pretrain', '--env', 'treasure', '--preset', 'smoke', '--cache-dir', cacheDir];
    const r = await runCaptured([...argv, '--set', 'warmStart.retryEpochs=2']);
    expect(r.code).toBe(0);
    // The smoke preset's one epoch on a tiny corpus writes unfaithful notes: the retry is taken.
    expect(r.err).toMatch(/notes recall below 80% \(treasure \d+%\); made again with 2 epochs/);
    const dir = warmStartDir(cacheDir, {
      envs: ['treasure'],
      preset: 'smoke',
      seed: 1,
      warmStart: { retryEpochs: 2 },
    });
    const manifest = JSON.parse(await readFile(join(dir, 'mage-tiny.json'), 'utf8'));
    const { firstTry, warmStart } = manifest.warmStart;
    expect(firstTry.epochs).toBe(RUN_PRESETS.smoke.warmStart.epochs);
    expect(firstTry.envs[0].noteRecall).toBeLessThan(0.8);
    expect([warmStart.epochs, warmStart.retryEpochs]).toEqual([2, 0]);
    // Found in the cache again, it says it was made twice.
    const again = await runCaptured([...argv, '--set', 'warmStart.retryEpochs=2']);
    expect(again.out).toMatch(
      /made again \(warmStart\.retryEpochs\): the first try trained 1 epochs and its notes recalled treasure \d+\.\d%/,
    );
  }, 120_000);

  it('finds no warm start in a model directory that no warm start wrote, or in none', async () => {
    const dir = await saveTinyModel(join(tmp.path, 'plain'), 2, 'not a warm start');
    expect(await cachedWarmStart(dir)).toBeUndefined();
    expect(await cachedWarmStart(join(tmp.path, 'none'))).toBeUndefined();
  });
});
