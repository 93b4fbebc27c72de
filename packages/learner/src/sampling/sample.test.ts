import { createRng } from '@mage-rl/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { logprobAt, sampleToken, topCandidates } from './sample';

const lp = Float32Array.from([Math.log(0.5), Math.log(0.3), Math.log(0.15), Math.log(0.05)]);

function histogram(params: { temperature: number; topK: number; topP: number }, n = 4000): number[] {
  const rng = createRng(3);
  const h = [0, 0, 0, 0];
  for (let i = 0; i < n; i++) {
    const id = sampleToken(lp, params, rng);
    h[id] = (h[id] as number) + 1;
  }
  return h.map((x) => x / n);
}

describe('sampleToken', () => {
  it('samples the distribution at temperature 1', () => {
    const h = histogram({ temperature: 1, topK: 0, topP: 1 });
    for (const [i, p] of [0.5, 0.3, 0.15, 0.05].entries())
      expect(Math.abs((h[i] as number) - p)).toBeLessThan(0.03);
  });

  it('samples the distribution at temperature 0.5, whose log-probs logprobAt gives', () => {
    // p^(1/T) normalised: 0.25, 0.09, 0.0225, 0.0025 over 0.365.
    const p = [0.25, 0.09, 0.0225, 0.0025].map((x) => x / 0.365);
    const h = histogram({ temperature: 0.5, topK: 0, topP: 1 });
    for (const [i, q] of p.entries()) {
      expect(Math.abs((h[i] as number) - q)).toBeLessThan(0.03);
      expect(logprobAt(lp, i, 0.5)).toBeCloseTo(Math.log(q), 6);
      expect(logprobAt(lp, i, 1)).toBeCloseTo(lp[i] as number, 6);
    }
  });

  it('greedy at temperature 0, top-k and top-p cut the tail', () => {
    expect(histogram({ temperature: 0, topK: 0, topP: 1 })).toEqual([1, 0, 0, 0]);
    const k2 = histogram({ temperature: 1, topK: 2, topP: 1 });
    expect(k2[2]).toBe(0);
    expect(Math.abs((k2[0] as number) - 0.625)).toBeLessThan(0.03);
    const p = histogram({ temperature: 1, topK: 0, topP: 0.7 });
    expect(p[2]).toBe(0);
    expect(p[3]).toBe(0);
  });

  it('always returns an in-range id that survives the cuts', () => {
    fc.assert(
      fc.property(
        fc.array(fc.float({ min: -20, max: 0, noNaN: true }), { minLength: 1, maxLength: 30 }),
        fc.float({ min: 0, max: 3, noNaN: true }),
        fc.nat({ max: 40 }),
        fc.float({ min: Math.fround(0.05), max: 1, noNaN: true }),
        fc.nat(),
        (values, temperature, topK, topP, seed) => {
          const x = Float32Array.from(values);
          const id = sampleToken(x, { temperature, topK, topP }, createRng(seed));
          expect(id).toBeGreaterThanOrEqual(0);
          expect(id).toBeLessThan(x.length);
          if (topK > 0 && temperature > 0) {
            const rank = values.filter(
              (v, j) => v > (values[id] as number) || (v === values[id] && j < id),
            ).length;
            expect(rank).toBeLessThan(topK);
          }
        },
      ),
      { numRuns: 300, seed: 1 },
    );
  });
});

describe('topCandidates', () => {
  const bySort = (x: Float32Array, k: number) =>
    Array.from(x, (v, id) => ({ id, v }))
      .sort((a, b) => b.v - a.v || a.id - b.id)
      .slice(0, k);

  it('selects what a full sort selects, in the same order (ties by id)', () => {
    fc.assert(
      fc.property(
        // Few distinct values, so ties are common.
        fc.array(fc.integer({ min: -6, max: 0 }), { minLength: 1, maxLength: 200 }),
        fc.integer({ min: 1, max: 210 }),
        (values, k) => {
          const x = Float32Array.from(values, (v) => v / 2);
          expect(topCandidates(x, k)).toEqual(bySort(x, k));
        },
      ),
      { numRuns: 500, seed: 2 },
    );
    const big = Float32Array.from({ length: 151_936 }, (_, i) => Math.sin(i * 12.9898) * 10);
    big[77_777] = Number.NEGATIVE_INFINITY;
    expect(topCandidates(big, 20)).toEqual(bySort(big, 20));
  });
});
