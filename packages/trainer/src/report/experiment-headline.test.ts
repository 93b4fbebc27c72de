import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { useTempDir } from '@mage-rl/core/testing/vitest';
import { describe, expect, it } from 'vitest';
import { EXPERIMENT_EVAL_FORMAT } from '../experiment/experiment';
import { EXPERIMENT_FORMAT } from '../experiment/experiment-spec';
import { reportExperiment } from './experiment-dir-report';
import type { ExperimentResultsV1 } from './experiment-results';

const tmp = useTempDir('mage-experiment-headline-');

/** A summary of 20 meta-episodes with cumulative success `pass` at attempts 1..3 (the fields reports read). */
const summary = (pass: readonly number[]) => ({
  metaEpisodes: 20,
  perAttempt: pass.map((rate) => ({
    attempt: 1,
    played: 20,
    passAtK: { rate, low: rate, high: rate, trials: 20 },
    success: { rate, low: rate, high: rate, trials: 20 },
    draw: { rate: 0, low: 0, high: 0, trials: 20 },
    meanReturn: rate,
  })),
  invalidActionRate: { rate: 0, low: 0, high: 0, trials: 20 },
});

const COMMIT = 'a'.repeat(40);
const code = (commit: string | null = COMMIT) => ({
  commit,
  dirty: false,
  packages: { '@mage-rl/trainer': '0.1.0' },
});

/**
 * A synthetic Tic-Tac-Toe experiment directory: the warm start and `mage` at `pass3[policy][memory]` (pass@3
 * per seed, pass@1 and pass@2 below it), seeds 1..n, each evaluation file with `codeOf(policy, memory, seed)`.
 */
async function experimentDir(
  name: string,
  pass3: Record<'warm-start' | 'mage', Record<'reflection' | 'none', readonly number[]>>,
  codeOf: (policy: string, memory: string, seed: number) => object | undefined = () => code(),
): Promise<string> {
  const dir = join(tmp.path, name);
  await mkdir(join(dir, 'evals'), { recursive: true });
  const seeds = pass3.mage.reflection.map((_, i) => i + 1);
  const spec = {
    format: EXPERIMENT_FORMAT,
    env: 'tictactoe',
    preset: 'smoke',
    methods: ['warm-start', 'mage'],
    seeds,
    overrides: {},
    grid: [],
    evalMemories: ['reflection', 'none'],
  };
  const call = { command: 'mage experiment', commit: COMMIT, code: code(), started: '2026-01-01T00:00:00Z' };
  const record = {
    spec,
    commands: ['mage experiment'],
    calls: [call],
    machine: { cpu: 'x' },
    started: call.started,
  };
  await writeFile(join(dir, 'experiment.json'), JSON.stringify(record));
  for (const policy of ['warm-start', 'mage'] as const) {
    for (const memory of ['reflection', 'none'] as const) {
      for (const seed of seeds) {
        const p = pass3[policy][memory][seed - 1]!;
        const metrics = {
          attempts: 3,
          overall: summary([p - 0.1, p - 0.05, p]),
          byOpponent: { random: summary([p - 0.1, p - 0.05, p]) },
        };
        const c = codeOf(policy, memory, seed);
        await writeFile(
          join(dir, 'evals', `${policy}-s${seed}.${memory}.json`),
          JSON.stringify({
            format: EXPERIMENT_EVAL_FORMAT,
            label: policy,
            method: policy,
            variant: {},
            seed,
            memory,
            policy: `runs/${policy}-s${seed}`,
            suites: [{ name: 'in-domain', domain: 'in', metrics }],
            ...(c === undefined ? {} : { code: c }),
            trainSeconds: 1,
            evalSeconds: 1,
          }),
        );
      }
    }
  }
  return dir;
}

/**
 * Memoryless play collapsing: the trained weights gain 40 points from their notes, but with notes they are
 * only 6.7 points above the warm start, and with no memory 23.3 points below it.
 */
const COLLAPSE = {
  'warm-start': { reflection: [0.5, 0.6, 0.55], none: [0.4, 0.5, 0.45] },
  mage: { reflection: [0.6, 0.65, 0.6], none: [0.2, 0.25, 0.2] },
};

describe("the experiment report's headline against the warm start", () => {
  it('shows pass@3 with notes minus the warm start and both memoryless levels beside the memory benefit', async () => {
    const dir = await experimentDir('collapse', COLLAPSE);
    const files = await reportExperiment(dir);
    const results = JSON.parse(await readFile(files.results, 'utf8')) as ExperimentResultsV1;
    const [c, ...others] = results.versusWarmStart ?? [];
    expect(others).toEqual([]);
    expect(c).toMatchObject({ label: 'mage', memory: 'reflection', suite: 'in-domain', attempts: 3 });
    expect(c?.withMemory.seeds).toEqual([1, 2, 3]);
    expect(c?.withMemory.mean).toBeCloseTo(0.2 / 3, 12);
    expect(c?.withoutMemory?.trained.mean).toBeCloseTo(0.65 / 3, 12);
    expect(c?.withoutMemory?.warmStart.mean).toBeCloseTo(0.45, 12);
    expect(c?.withoutMemory?.difference.mean).toBeCloseTo(-0.7 / 3, 12);
    const md = await readFile(files.markdown, 'utf8');
    expect(md).toContain(
      '| policy | memory | seeds | memory benefit pass@3 (pts) | pass@3 with memory − warm start (pts) | pass@3 no memory % | warm start pass@3 no memory % | no memory − warm start (pts) |',
    );
    // Means over seeds with 95% t-intervals: the memory benefit is +40.0 in every seed (an
    // interval of width 0).
    const row = md.split('\n').find((l) => l.startsWith('| mage | reflection | 3 |'));
    expect(row).toMatch(
      /^\| mage \| reflection \| 3 \| \+40\.0 \[\+40\.0, \+40\.0\] \| \+6\.7 \[−0\.5, \+13\.8\] \| 21\.7 \[14\.5, 28\.8\] \| 45\.0 \[32\.6, 57\.4\] \| −23\.3 \[−30\.5, −16\.2\] \|$/,
    );
    // Beside the memory benefit: right after its table, before the per-policy table.
    expect(md.indexOf('Memory benefit:')).toBeLessThan(md.indexOf('Against the warm start:'));
    expect(md.indexOf('Against the warm start:')).toBeLessThan(md.indexOf('| policy | eval memory |'));
    // Every evaluation at one commit: said once.
    expect(md).toContain('Code of the evaluations: commit aaaaaaa.');
    expect(md).toContain('- `mage experiment` at commit `aaaaaaa`, 2026-01-01T00:00:00Z');
  });

  it('pairs by seed and leaves the memoryless cells empty where the warm start has no memoryless evaluation', async () => {
    const dir = await experimentDir('no-warm-none', COLLAPSE);
    for (const seed of [1, 2, 3])
      await writeFile(join(dir, 'evals', `warm-start-s${seed}.none.json`), '{"format":"other"}');
    const md = await readFile((await reportExperiment(dir)).markdown, 'utf8');
    expect(md).toMatch(
      /\| mage \| reflection \| 3 \| \+40\.0 \[\+40\.0, \+40\.0\] \| \+6\.7 \[[^\]]+\] \| — \| — \| — \|/,
    );
  });

  it('has no such table without a warm start, and names several code versions in the header', async () => {
    const dir = await experimentDir('mixed', COLLAPSE, (policy, _memory, seed) =>
      policy === 'mage' && seed === 3 ? code('b'.repeat(40)) : seed === 2 ? undefined : code(),
    );
    const md = await readFile((await reportExperiment(dir)).markdown, 'utf8');
    expect(md).toMatch(
      /\*\*Code of the evaluations: 3 versions\*\* — commit aaaaaaa \(6 files\); commit unknown \(4 files\); commit bbbbbbb \(2 files\)/,
    );
    const bare = await experimentDir('bare', COLLAPSE);
    for (const seed of [1, 2, 3]) {
      for (const memory of ['reflection', 'none']) {
        await writeFile(join(bare, 'evals', `warm-start-s${seed}.${memory}.json`), '{"format":"other"}');
      }
    }
    const without = await readFile((await reportExperiment(bare)).markdown, 'utf8');
    expect(without).toContain('Memory benefit:');
    expect(without).not.toContain('Against the warm start:');
  });
});
