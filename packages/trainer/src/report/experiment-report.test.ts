import type { MetricsSummaryV1 } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import type { ExperimentEvalV1 } from '../experiment/experiment';
import { benefitTable, memoryBenefits } from './experiment-report';

/** A summary of `n` meta-episodes with cumulative success `pass` at attempts 1..K (fields the report reads). */
const summary = (n: number, pass: readonly number[]) =>
  ({
    metaEpisodes: n,
    perAttempt: pass.map((rate) => ({ passAtK: { rate }, meanReturn: 0 })),
    invalidActionRate: { rate: 0 },
  }) as unknown as MetricsSummaryV1;

/** One seed's evaluation of `memory` against a pattern player and a random player, 10 meta-episodes each. */
const evaluation = (memory: 'reflection' | 'none', pattern: number[], random: number[]): ExperimentEvalV1 =>
  ({
    label: 'mage',
    method: 'mage',
    seed: 2,
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

  it('has no ceiling, and no ceiling columns, without identifiable opponents', () => {
    const [b] = memoryBenefits(evals);
    expect(b?.overall.identificationCeiling).toBeUndefined();
    expect(benefitTable([b!]).join('\n')).not.toContain('ceiling');
  });
});
