import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MetaEpisodeMetricsV1, MetricsSummaryV1 } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import type { ExperimentEvalV1 } from '../experiment/experiment';
import { writeExperimentReport } from './experiment-report';
import { experimentResults, memoryBenefits, notesBenefits, passAtKHeadroom } from './experiment-results';
import { benefitTable, notesBenefitTable, returnBenefitTable } from './experiment-tables';
import { populationHeadroom, type ReferenceValuesV1 } from './reference-values';

/** A summary of `n` meta-episodes with cumulative success `pass` at attempts 1..K (fields the report reads). */
const summary = (n: number, pass: readonly number[]) =>
  ({
    metaEpisodes: n,
    perAttempt: pass.map((rate) => ({ passAtK: { rate }, meanReturn: 0 })),
    invalidActionRate: { rate: 0 },
  }) as unknown as MetricsSummaryV1;

/** One seed's evaluation of `memory` against a pattern player and a random player, 10 meta-episodes each. */
const evaluation = (
  memory: 'reflection' | 'none' | 'foreign-notes',
  pattern: number[],
  random: number[],
  seed = 2,
): ExperimentEvalV1 =>
  ({
    label: 'mage',
    method: 'mage',
    seed,
    memory,
    suites: [
      {
        name: 'in-domain',
        domain: 'in',
        metrics: {
          overall: summary(
            20,
            pattern.map((p, k) => (p + random[k]!) / 2),
          ),
          byOpponent: { 'pattern-a': summary(10, pattern), random: summary(10, random) },
        },
      },
    ],
  }) as unknown as ExperimentEvalV1;

describe('memoryBenefits', () => {
  const evals = [
    evaluation('reflection', [0.5, 0.8, 0.9], [0.3, 0.4, 0.5]),
    evaluation('none', [0.5, 0.55, 0.6], [0.3, 0.4, 0.5]),
  ];

  it('bounds the benefit by the no-memory losses against identifiable opponents over all meta-episodes', () => {
    const [b] = memoryBenefits(evals, ['pattern-a']);
    expect(b?.overall.passAtK.map((m) => m.mean)).toEqual([
      0,
      expect.closeTo(0.125, 12),
      expect.closeTo(0.15, 12),
    ]);
    // 10 of 20 meta-episodes against the pattern player, 40% of them lost with no memory by attempt 3.
    expect(b?.overall.identificationCeiling?.mean).toBeCloseTo(0.2, 12);
    const table = benefitTable(memoryBenefits(evals, ['pattern-a'])).join('\n');
    expect(table).toContain('identification ceiling pass@3 (pts) | share of ceiling |');
    expect(table).toContain('| +0.0 | 20.0 | 75% |');
  });

  it('measures the share of the adaptive headroom against the no-memory level, per attempt', () => {
    // Overall pass@k with notes 0.4 / 0.6 / 0.7, without 0.4 / 0.475 / 0.55; a perfect reader 0.4 / 0.9 / 1.
    const headroom = passAtKHeadroom([0.4, 0.9, 1]);
    const [b] = memoryBenefits(evals, [], (suite) => (suite === 'in-domain' ? headroom : undefined));
    const share = b?.overall.headroomShare;
    expect(share?.measure).toBe('pass@k');
    expect(share?.perAttempt[0]).toBeNull();
    expect(share?.perAttempt[1]?.mean).toBeCloseTo(0.125 / 0.425, 12);
    expect(share?.perAttempt[2]?.mean).toBeCloseTo(0.15 / 0.45, 12);
    const table = benefitTable([b!]).join('\n');
    expect(table).toContain('share of the adaptive headroom |');
    expect(table).toContain('| — → 29% → 33% |');
    expect(memoryBenefits(evals, [], () => undefined)[0]?.overall.headroomShare).toBeUndefined();
  });

  it('takes the headroom share over seeds as a ratio of means, so a seed with no headroom does not blow it up', () => {
    // Seed 3 nearly reaches the ceiling with no memory (0.999 of 1 at attempt 3) and loses 0.05 with notes:
    // its own share would be −50, and a mean of per-seed shares about −25.
    const twoSeeds = [
      ...evals,
      evaluation('reflection', [0.5, 0.9, 0.898], [0.3, 0.9, 1], 3),
      evaluation('none', [0.5, 0.9, 0.998], [0.3, 0.9, 1], 3),
    ];
    const [b] = memoryBenefits(twoSeeds, [], () => passAtKHeadroom([0.4, 0.9, 1]));
    const share = b?.overall.headroomShare?.perAttempt[2];
    expect(share?.mean).toBeCloseTo((0.15 - 0.05) / (0.45 + 0.001), 12);
    expect(share?.n).toBe(2);
    expect(share!.low).toBeLessThan(share!.mean);
  });

  it('reads the headroom under the population from the opponents the ceiling weighs', () => {
    const refs = {
      unit: 'wins',
      rewardPerReturn: 1,
      byOpponent: {},
      ceiling: {
        population: [
          { id: 'pattern-a', weight: 3 },
          { id: 'random', weight: 1 },
        ],
        perAttempt: [1, 2, 3],
      },
    } as unknown as ReferenceValuesV1;
    const headroom = populationHeadroom(refs)!;
    const returns = (r: readonly number[]) => ({ perAttempt: r.map((meanReturn) => ({ meanReturn })) });
    const metrics = {
      overall: returns([0, 0, 0]),
      byOpponent: { 'pattern-a': returns([0.4, 1.2, 2]), random: returns([0.8, 0.4]) },
    } as unknown as MetaEpisodeMetricsV1;
    // Prior-weighted: 3/4 of pattern-a and 1/4 of random, an attempt past the last played reading the last.
    expect(headroom.level(metrics, 1)).toBeCloseTo(0.75 * 1.2 + 0.25 * 0.4, 12);
    expect(headroom.level(metrics, 2)).toBeCloseTo(0.75 * 2 + 0.25 * 0.4, 12);
    expect(headroom.measure).toBe('wins under the population');
    expect(
      headroom.level({ ...metrics, byOpponent: { random: metrics.byOpponent.random! } }, 1),
    ).toBeUndefined();
    expect(
      populationHeadroom({ ...refs, ceiling: undefined } as unknown as ReferenceValuesV1),
    ).toBeUndefined();
  });

  it('has no ceiling, and no ceiling columns, without identifiable opponents', () => {
    const [b] = memoryBenefits(evals);
    expect(b?.overall.identificationCeiling).toBeUndefined();
    expect(benefitTable([b!]).join('\n')).not.toContain('ceiling');
  });
});

describe('notesBenefits', () => {
  // Two seeds, each with own notes, foreign notes and no memory.
  const evals = [
    evaluation('reflection', [0.5, 0.8, 0.9], [0.3, 0.4, 0.5], 2),
    evaluation('foreign-notes', [0.5, 0.6, 0.7], [0.3, 0.4, 0.45], 2),
    evaluation('none', [0.5, 0.55, 0.6], [0.3, 0.4, 0.5], 2),
    evaluation('reflection', [0.4, 0.7, 0.9], [0.2, 0.3, 0.4], 3),
    evaluation('foreign-notes', [0.4, 0.7, 0.8], [0.2, 0.3, 0.4], 3),
    evaluation('none', [0.4, 0.5, 0.6], [0.2, 0.3, 0.4], 3),
  ];

  it('pairs own notes with foreign notes by seed, overall and per opponent', () => {
    const [b, ...rest] = notesBenefits(evals);
    expect(rest).toEqual([]);
    expect(b).toMatchObject({
      label: 'mage',
      memory: 'reflection',
      versus: 'foreign-notes',
      suite: 'in-domain',
    });
    expect(b?.overall.seeds).toEqual([2, 3]);
    // Seed 2: 0 / +0.1 / +0.125 overall; seed 3: 0 / 0 / +0.05.
    expect(b?.overall.passAtK.map((m) => m.mean)).toEqual([
      0,
      expect.closeTo(0.05, 12),
      expect.closeTo(0.0875, 12),
    ]);
    expect(b?.overall.passAtK[2]?.n).toBe(2);
    expect(b?.byOpponent['pattern-a']?.passAtK.map((m) => m.mean)).toEqual([
      0,
      expect.closeTo(0.1, 12),
      expect.closeTo(0.15, 12),
    ]);
    // The ceiling and the headroom share are about the benefit over no memory only.
    expect(b?.overall.identificationCeiling).toBeUndefined();
    expect(b?.overall.headroomShare).toBeUndefined();
  });

  it('puts them in results.json beside the memory benefits, which also hold foreign notes minus none', () => {
    const results = experimentResults(evals, ['pattern-a'], () => passAtKHeadroom([0.4, 0.9, 1]));
    expect(results.rows.map((r) => r.memory)).toEqual(['reflection', 'foreign-notes', 'none']);
    expect(results.memoryBenefit.map((b) => `${b.memory} − ${b.versus}`)).toEqual([
      'reflection − none',
      'foreign-notes − none',
    ]);
    expect(results.memoryBenefit.every((b) => b.overall.headroomShare)).toBe(true);
    expect(results.notesBenefit.map((b) => `${b.memory} − ${b.versus}`)).toEqual([
      'reflection − foreign-notes',
    ]);
    // Own minus none is own minus foreign plus foreign minus none, seed by seed and so in the mean.
    const [own, foreign] = results.memoryBenefit;
    results.notesBenefit[0]?.overall.passAtK.forEach((m, k) => {
      expect(m.mean).toBeCloseTo(own!.overall.passAtK[k]!.mean - foreign!.overall.passAtK[k]!.mean, 12);
    });
    // Without foreign-notes evaluations there are none (and old directories report as before).
    expect(experimentResults(evals.filter((e) => e.memory !== 'foreign-notes')).notesBenefit).toEqual([]);
  });

  it('prints own minus foreign notes per policy and per opponent, with intervals over seeds', () => {
    const table = notesBenefitTable(notesBenefits(evals)).join('\n');
    expect(table).toContain(
      '| policy | opponent | seeds | pass@1 (pts) | pass@2 (pts) | pass@3 (pts) | invalid moves (pts) |',
    );
    expect(table).toContain(
      '| mage | all | 2 | +0.0 [+0.0, +0.0] | +5.0 [−58.5, +68.5] | +8.7 [−38.9, +56.4] | +0.0 [+0.0, +0.0] |',
    );
    expect(table).toContain('| mage | pattern-a | 2 | +0.0 [+0.0, +0.0] | +10.0 [−117.1, +137.1] |');
    expect(table).toContain(
      '| mage | random | 2 | +0.0 [+0.0, +0.0] | +0.0 [+0.0, +0.0] | +2.5 [−29.3, +34.3] |',
    );
    // Records written before the swap count leave its cell empty.
    expect(table).toContain('| +0.0 [+0.0, +0.0] |  |');
    expect(notesBenefitTable([])).toEqual([]);
    expect(returnBenefitTable(notesBenefits(evals)).join('\n')).toMatch(
      /Own notes minus foreign notes in return[\s\S]*\| mage \| reflection − foreign-notes \|/,
    );
  });
});

describe('notesBenefits swaps', () => {
  const withSwaps = (e: ExperimentEvalV1, replaced: number, sameText: number): ExperimentEvalV1 => ({
    ...e,
    suites: e.suites.map((s) => ({ ...s, swaps: { replaced, sameText } })),
  });
  const evals = [
    evaluation('reflection', [0.5, 0.8, 0.9], [0.3, 0.4, 0.5], 2),
    withSwaps(evaluation('foreign-notes', [0.5, 0.6, 0.7], [0.3, 0.4, 0.45], 2), 30, 6),
    evaluation('reflection', [0.4, 0.7, 0.9], [0.2, 0.3, 0.4], 3),
    withSwaps(evaluation('foreign-notes', [0.4, 0.7, 0.8], [0.2, 0.3, 0.4], 3), 10, 4),
  ];

  it('sums the swapped notes and those that read as the replaced ones over seeds, and prints the share', () => {
    const [b] = notesBenefits(evals);
    expect(b?.swaps).toEqual({ replaced: 40, sameText: 10 });
    const table = notesBenefitTable([b!]).join('\n');
    expect(table).toMatch(/\| mage \| all \| 2 \| .* \| 10 of 40 \(25\.0%\) \|/);
    // Per opponent there is no count: a swap belongs to the suite.
    expect(table).toMatch(/\| mage \| pattern-a \| 2 \| .* \| {2}\|$/m);
  });
});

describe('writeExperimentReport', () => {
  const evals = [
    evaluation('reflection', [0.5, 0.8, 0.9], [0.3, 0.4, 0.5]),
    evaluation('none', [0.5, 0.55, 0.6], [0.3, 0.4, 0.5]),
  ];
  const opponent = { bestResponse: 1, equilibrium: 0, ceiling: [0.1, 0.5, 0.5] };
  const references = {
    unit: 'chips per hand',
    rewardPerReturn: 5,
    byOpponent: { 'pattern-a': opponent, random: opponent },
    ceiling: { population: [{ id: 'pattern-a', weight: 1 }], perAttempt: [0.1, 0.5, 0.5] },
  } as unknown as ReferenceValuesV1;

  it('draws returns by attempt beside the adaptation ceiling when the env has one, and not otherwise', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mage-experiment-report-'));
    try {
      const header = { title: 't', lines: [] };
      const withCeiling = await writeExperimentReport(evals, dir, header, references);
      expect(withCeiling.images.map((f) => f.slice(dir.length + 1))).toEqual([
        'success-by-attempt.svg',
        'success-by-attempt.png',
        'returns-by-attempt.svg',
        'returns-by-attempt.png',
      ]);
      const svg = await readFile(join(dir, 'returns-by-attempt.svg'), 'utf8');
      for (const text of [
        'adaptation ceiling',
        'under the training population',
        'against pattern-a',
        'against random',
      ]) {
        expect(svg).toContain(text);
      }
      expect(await readFile(withCeiling.markdown, 'utf8')).toContain(
        '![chips per hand by attempt](returns-by-attempt.png)',
      );

      const { ceiling: _, ...noCeiling } = references;
      const without = await writeExperimentReport(evals, join(dir, 'b'), header, noCeiling);
      expect(without.images.some((f) => f.includes('returns-by-attempt'))).toBe(false);
      expect(await readFile(without.markdown, 'utf8')).not.toContain('returns-by-attempt');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
