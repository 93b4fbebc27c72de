import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUN_CONFIG_FORMAT } from '@mage-rl/core';
import { afterAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../testing/cli.test-helper';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/**
 * A run directory whose config.json records `extra` (the resolved config of `mage train --preset smoke`
 * with `edit` applied) and a model directory that holds no model, so a resume that passes the
 * configuration check stops at loading the model.
 */
async function runDirWith(edit: (extra: Record<string, unknown>) => void): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'mage-memory-resume-'));
  dirs.push(dir);
  const model = join(dir, 'model');
  const run = join(dir, 'run');
  await mkdir(model);
  await mkdir(run);
  const shown = await runCaptured(['train', '--preset', 'smoke', '--model', model, '--show-config']);
  const extra = { ...(JSON.parse(shown.out) as Record<string, unknown>), warmStartDir: model };
  edit(extra);
  await writeFile(join(run, 'config.json'), JSON.stringify({ format: RUN_CONFIG_FORMAT, extra }));
  return ['train', '--preset', 'smoke', '--model', model, '--run-dir', run, '--resume'];
}

describe('mage train --resume and memory.budget', () => {
  it('resumes a config.json written before memory.budget existed, or with another budget', async () => {
    for (const edit of [
      (extra: Record<string, unknown>) => delete extra.memory,
      (extra: Record<string, unknown>) => Object.assign(extra, { memory: { budget: '16GiB' } }),
    ]) {
      const r = await runCaptured(await runDirWith(edit));
      expect(r.code).toBe(1);
      expect(r.err).not.toMatch(/Cannot resume/);
      expect(r.err).toMatch(/neither a mage-tiny directory/);
    }
  });

  it('still refuses a resume that changes anything else', async () => {
    const r = await runCaptured(
      await runDirWith((extra) => {
        delete extra.memory;
        (extra.ppo as Record<string, unknown>).lr = 0.5;
      }),
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/Cannot resume .* differs from its config\.json at ppo\.lr\./);
  });
});
