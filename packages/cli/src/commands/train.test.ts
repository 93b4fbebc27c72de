import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathExists } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { commandLine, runCaptured, runJson, useTempDir } from '../testing/cli.test-helper';

interface TrainJson {
  readonly runDir: string;
  readonly warmStart: string;
  readonly iterations: number;
  readonly lastCheckpoint: string | null;
  readonly report: string;
}

const lines = async (dir: string) =>
  (await readFile(join(dir, 'metrics.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; iteration: number });

describe('mage train --preset smoke (slow: warm start + 2 iterations + resume)', () => {
  const tmp = useTempDir('mage-train-');

  it('warm-starts, trains, evaluates, checkpoints, reports, and resumes where it stopped', async () => {
    const runDir = join(tmp.path, 'run');
    const common = [
      ...commandLine('--env tictactoe --method mage --preset smoke'),
      '--cache-dir',
      join(tmp.path, 'cache'),
    ];
    const first = await runJson<TrainJson>(['train', ...common, '--run-dir', runDir]);
    expect(first.iterations).toBe(2);
    expect(first.warmStart).toContain(join(tmp.path, 'cache', 'mage-tiny'));
    const before = await lines(runDir);
    expect(before.filter((l) => l.type === 'update').map((l) => l.iteration)).toEqual([0, 1]);
    expect(before.filter((l) => l.type === 'rollout')).toHaveLength(2);
    expect(before.some((l) => l.type === 'eval')).toBe(true);
    const update = before.find((l) => l.type === 'update') as unknown as {
      loss: number | null;
      tokens: number;
    };
    expect(update.tokens).toBeGreaterThan(0);
    expect(update.loss === null || Number.isFinite(update.loss)).toBe(true);
    expect(await readdir(join(runDir, 'checkpoints'))).toContain('latest.json');
    expect(await readFile(first.report, 'utf8')).toContain('# mage-rl run report');

    // Resume with one more iteration: the two done are kept, exactly one new one runs.
    const resumeTo3 = ['train', ...common, '--run-dir', runDir, '--resume', '--iterations', '3'];
    const second = await runJson<TrainJson>(resumeTo3);
    expect(second.iterations).toBe(3);
    const after = await lines(runDir);
    expect(after.filter((l) => l.type === 'update').map((l) => l.iteration)).toEqual([0, 1, 2]);
    expect(after.slice(0, before.length)).toEqual(before);
    // The iteration count is safe to change on resume; the run's record keeps the original one.
    const record = JSON.parse(await readFile(join(runDir, 'config.json'), 'utf8'));
    expect(record.extra.train.iterations).toBe(2);

    // A changed setting is refused before anything else happens: no warm start is pretrained into a new cache.
    const freshCache = join(tmp.path, 'cache-2');
    const changed = await runCaptured([
      'train',
      ...commandLine('--env tictactoe --method mage --preset smoke --meta-reward single --resume'),
      ...['--cache-dir', freshCache, '--run-dir', runDir],
    ]);
    expect(changed.code).toBe(1);
    expect(changed.err).toMatch(/Cannot resume .* differs from its config\.json at advantage\.metaReward/);
    expect(await pathExists(freshCache)).toBe(false);
    const method = await runCaptured([
      'train',
      ...common,
      '--method',
      'grpo',
      '--run-dir',
      runDir,
      '--resume',
    ]);
    expect(method.err).toMatch(/differs from its config\.json at method, /);

    // A finished run says so and trains nothing.
    const done = await runCaptured(resumeTo3);
    expect(done.code).toBe(0);
    expect(done.out).toMatch(/run already complete: .* has trained all 3 iterations/);
    expect(await lines(runDir)).toEqual(after);

    // A damaged warm-start cache entry is rebuilt, not fatal.
    await writeFile(join(first.warmStart, 'mage-tiny.json'), 'null');
    const rebuilt = await runJson<TrainJson>([
      'train',
      ...common,
      ...['--run-dir', join(tmp.path, 'run-2'), '--iterations', '1'],
    ]);
    expect(rebuilt.iterations).toBe(1);
    expect(JSON.parse(await readFile(join(first.warmStart, 'mage-tiny.json'), 'utf8')).format).toBe(
      'mage-rl/mage-tiny@1',
    );
  }, 600_000);

  it('rejects methods that do not train, and bad flags, with one paragraph', async () => {
    const r = await runCaptured(['train', '--method', 'reflexion', '--run-dir', join(tmp.path, 'x')]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/does not train.*mage eval --method reflexion/);
    const bad = await runCaptured(['train', '--preset', 'huge']);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/--preset must be one of paper, laptop, reading, smoke/);
  });
});
