import { cp, link, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runTraining } from '@mage-rl/core';
import { createTabularLearner } from '@mage-rl/core/testing';
import { resolveTrainConfig, trainingOptionsOf } from '@mage-rl/recipes';
import { describe, expect, it } from 'vitest';
import { runCaptured, runJson, useTempDir } from '../testing/cli.test-helper';
import type { ReportJson } from './report';

const CANDIDATES = ['<action> PASS </action>', '<action> BET </action>', '<remark> attempt 1 lost </remark>'];
const tmp = useTempDir('mage-report-');
let runs = 0;

async function trainRun(method: 'mage' | 'grpo'): Promise<string> {
  const runDir = join(tmp.path, `${method}-${++runs}`);
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
    expect(md).toContain('Runs: `../mage-1` (mage (kuhn-poker), 2 updates), `../grpo-2`');
    // A report inside its own run directory names the run, not `.`.
    const own = await runJson<ReportJson>(['report', mage]);
    expect(await readFile(own.markdown, 'utf8')).toContain('Runs: `mage-1` (mage (kuhn-poker), 2 updates).');
  });

  it('fails clearly on a directory that is not a run', async () => {
    const r = await runCaptured(['report', tmp.path]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/is not a run directory: it has no metrics.jsonl/);
  });

  it('names a config.json that is null or not JSON instead of crashing', async () => {
    const run = await trainRun('mage');
    for (const bad of ['null', '{"extra": ', '[1, 2]']) {
      const dir = join(tmp.path, `bad-config-${bad.length}`);
      await cp(run, dir, { recursive: true });
      await writeFile(join(dir, 'config.json'), bad);
      const r = await runCaptured(['report', dir]);
      expect(r.code).toBe(1);
      expect(r.err).toContain(`'${join(dir, 'config.json')}' (the run's configuration record)`);
      expect(r.err).not.toMatch(/internal error|at async/);
    }
  });

  it('says which metrics lines it left out; a torn last line is not damage', async () => {
    const run = await trainRun('grpo');
    const dir = join(tmp.path, 'damaged-metrics');
    await cp(run, dir, { recursive: true });
    const lines = (await readFile(join(dir, 'metrics.jsonl'), 'utf8')).split('\n');
    lines[1] = '{"type":"upd';
    await writeFile(join(dir, 'metrics.jsonl'), `${lines.join('\n')}{"type":"roll`);
    const r = await runCaptured(['report', dir]);
    expect(r.code).toBe(0);
    expect(r.err).toContain('1 unreadable line(s) left out of the report (line 2)');
  });

  it('--out onto a file is a user error naming the flag; files are replaced atomically', async () => {
    const run = await trainRun('mage');
    const file = join(tmp.path, 'not-a-dir.txt');
    await writeFile(file, 'keep');
    const r = await runCaptured(['report', run, '--out', file]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/--out '.*not-a-dir\.txt' is a file; --out names a directory/);
    expect(await readFile(file, 'utf8')).toBe('keep');
    // A figure that shares its inode with another file: an in-place write would change both, a
    // temporary file renamed over it (what a full disk cannot truncate) leaves the other one intact.
    const out = join(tmp.path, 'atomic-out');
    await mkdir(out);
    await writeFile(join(tmp.path, 'other.png'), 'other');
    await link(join(tmp.path, 'other.png'), join(out, 'credit.png'));
    await link(join(tmp.path, 'other.png'), join(out, 'report.md'));
    await runJson<ReportJson>(['report', run, '--out', out]);
    expect(await readFile(join(tmp.path, 'other.png'), 'utf8')).toBe('other');
    expect((await readFile(join(out, 'credit.png'))).subarray(1, 4).toString('latin1')).toBe('PNG');
  });
});

describe('mage report of an experiment directory', () => {
  /** One evaluation file of a synthetic Tic-Tac-Toe experiment: pass@1..3 of `p − 0.1, p − 0.05, p`. */
  const evalFile = (policy: string, memory: string, seed: number, p: number) => {
    const summary = {
      metaEpisodes: 20,
      perAttempt: [p - 0.1, p - 0.05, p].map((rate) => ({
        passAtK: { rate, low: rate, high: rate, trials: 20 },
        draw: { rate: 0, low: 0, high: 0, trials: 20 },
        meanReturn: rate,
      })),
      invalidActionRate: { rate: 0, low: 0, high: 0, trials: 20 },
    };
    return {
      format: 'mage-rl/experiment-eval@1',
      label: policy,
      method: policy,
      variant: {},
      seed,
      memory,
      policy: `runs/${policy}-s${seed}`,
      suites: [
        { name: 'in-domain', domain: 'in', metrics: { attempts: 3, overall: summary, byOpponent: {} } },
      ],
      code: { commit: 'c'.repeat(40), dirty: true, packages: { '@mage-rl/trainer': '0.1.0' } },
      trainSeconds: 1,
      evalSeconds: 1,
    };
  };

  it('rewrites its report, with pass@3 against the warm start and both memoryless levels', async () => {
    const dir = join(tmp.path, 'experiment');
    await mkdir(join(dir, 'evals'), { recursive: true });
    const spec = {
      env: 'tictactoe',
      preset: 'smoke',
      methods: ['warm-start', 'mage'],
      seeds: [1, 2],
      overrides: {},
      grid: [],
      evalMemories: ['reflection', 'none'],
    };
    await writeFile(
      join(dir, 'experiment.json'),
      JSON.stringify({ spec, commands: [], machine: {}, started: 't' }),
    );
    const pass: Record<string, number[]> = {
      'warm-start.reflection': [0.5, 0.6],
      'warm-start.none': [0.4, 0.5],
      'mage.reflection': [0.6, 0.7],
      'mage.none': [0.2, 0.3],
    };
    for (const [key, values] of Object.entries(pass)) {
      const [policy, memory] = key.split('.') as [string, string];
      for (const [i, p] of values.entries()) {
        await writeFile(
          join(dir, 'evals', `${policy}-s${i + 1}.${memory}.json`),
          JSON.stringify(evalFile(policy, memory, i + 1, p)),
        );
      }
    }
    const r = await runJson<{ experiment: boolean; markdown: string; results: string }>([
      'report',
      dir,
      '--json',
    ]);
    expect(r.experiment).toBe(true);
    const md = await readFile(r.markdown, 'utf8');
    expect(md).toContain('Code of the evaluations: commit ccccccc (dirty).');
    expect(md).toMatch(
      /\| mage \| reflection \| 2 \| \+40\.0 \[\+40\.0, \+40\.0\] \| \+10\.0 \[\+10\.0, \+10\.0\] \| 25\.0 \[[^\]]+\] \| 45\.0 \[[^\]]+\] \| −20\.0 \[−20\.0, −20\.0\] \|/,
    );
    const text = await runCaptured(['report', dir]);
    expect(text.out).toBe(`results: ${r.results}\nreport: ${r.markdown}\n`);
    // Its report belongs in it.
    const elsewhere = await runCaptured(['report', dir, '--out', join(tmp.path, 'elsewhere')]);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.err).toMatch(/--out .* is an experiment directory, whose report is written into it/);
  });
});
