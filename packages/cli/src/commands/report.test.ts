import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runTraining } from '@mage-rl/core';
import { createTabularLearner } from '@mage-rl/core/testing';
import { resolveTrainConfig, trainingOptionsOf } from '@mage-rl/recipes';
import { describe, expect, it } from 'vitest';
import { runCaptured, runJson, useTempDir } from '../testing/cli.test-helper';
import type { ReportJson } from './report';

const CANDIDATES = ['<action> PASS </action>', '<action> BET </action>', '<remark> attempt 1 lost </remark>'];
const tmp = useTempDir('mage-report-');

async function trainRun(method: 'mage' | 'grpo'): Promise<string> {
  const runDir = join(tmp.path, method);
  const config = resolveTrainConfig({}, { preset: 'smoke', method, env: 'kuhn-poker' });
  await runTraining(
    trainingOptionsOf(config, {
      learner: createTabularLearner({ candidates: CANDIDATES, seed: 1 }),
      reference: createTabularLearner({ candidates: CANDIDATES, seed: 1 }),
      runDir,
    }),
  );
  return runDir;
}

describe('mage report', () => {
  it('writes charts and report.md comparing runs', async () => {
    const mage = await trainRun('mage');
    const grpo = await trainRun('grpo');
    const out = join(tmp.path, 'report');
    const r = await runJson<ReportJson>(['report', mage, grpo, '--out', out]);
    expect(r.runs.map((x) => x.name)).toEqual(['mage (kuhn-poker)', 'grpo (kuhn-poker)']);
    expect(r.runs.every((x) => x.updates === 2 && x.evals >= 1)).toBe(true);
    expect(r.images.map((p) => p.slice(out.length + 1)).sort()).toEqual([
      'credit.png',
      'credit.svg',
      'per-opponent.png',
      'per-opponent.svg',
      'success-by-attempt.png',
      'success-by-attempt.svg',
      'training-curves.png',
      'training-curves.svg',
    ]);
    const md = await readFile(r.markdown, 'utf8');
    expect(md).toMatch(/\| mage \(kuhn-poker\) \| 2 \|/);
    expect(md).toMatch(/\| grpo \(kuhn-poker\) \| out \| cfr \|/);
    const png = await readFile(join(out, 'success-by-attempt.png'));
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    const svg = await readFile(join(out, 'success-by-attempt.svg'), 'utf8');
    expect(svg).toContain('mage (kuhn-poker) @2');
    expect(md).toContain('Runs: `../mage` (mage (kuhn-poker), 2 updates), `../grpo`');
    // A report inside its own run directory names the run, not `.`.
    const own = await runJson<ReportJson>(['report', mage]);
    expect(await readFile(own.markdown, 'utf8')).toContain('Runs: `mage` (mage (kuhn-poker), 2 updates).');
  });

  it('fails clearly on a directory that is not a run', async () => {
    const r = await runCaptured(['report', tmp.path]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/is not a run directory: it has no metrics.jsonl/);
  });
});
