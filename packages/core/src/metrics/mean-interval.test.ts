import { describe, expect, it } from 'vitest';
import { meanInterval, ratioOfMeansInterval } from './mean-interval';

describe('meanInterval', () => {
  it('gives the Student-t 95% interval over seeds', () => {
    const r = meanInterval([0.5, 0.6, 0.7]);
    expect(r.mean).toBeCloseTo(0.6, 12);
    expect(r.sd).toBeCloseTo(0.1, 12);
    // t(0.975, 2) = 4.303
    expect(r.high - r.mean).toBeCloseTo((4.303 * 0.1) / Math.sqrt(3), 10);
    expect(r.mean - r.low).toBeCloseTo(r.high - r.mean, 12);
    expect(meanInterval([0.4])).toMatchObject({ n: 1, mean: 0.4, low: 0.4, high: 0.4 });
    expect(meanInterval([]).n).toBe(0);
  });
});

describe('ratioOfMeansInterval', () => {
  it('equals the mean of per-seed ratios with its interval when the denominators are equal', () => {
    const r = ratioOfMeansInterval([1, 2, 3], [2, 2, 2]);
    const perSeed = meanInterval([0.5, 1, 1.5]);
    expect(r?.mean).toBeCloseTo(perSeed.mean, 12);
    expect(r?.sd).toBeCloseTo(perSeed.sd, 12);
    expect(r?.low).toBeCloseTo(perSeed.low, 12);
    expect(r?.high).toBeCloseTo(perSeed.high, 12);
  });

  it('stays finite when one denominator is near 0, and weights seeds by their denominators', () => {
    // Per-seed ratios 0.1 / 1e-6 and 0.2 / 0.4 would average to about 50 000.
    const r = ratioOfMeansInterval([0.1, 0.2], [1e-6, 0.4]);
    expect(r?.mean).toBeCloseTo(0.3 / 0.400001, 12);
    // Residuals 0.1 − ratio·1e-6 and 0.2 − ratio·0.4 sum to 0; their sd over the mean denominator, t(0.975, 1).
    const res = [0.1 - r!.mean * 1e-6, 0.2 - r!.mean * 0.4];
    const sd = Math.sqrt(res[0]! ** 2 + res[1]! ** 2) / (0.400001 / 2);
    expect(r?.sd).toBeCloseTo(sd, 9);
    expect(r!.high - r!.mean).toBeCloseTo((12.706 * sd) / Math.sqrt(2), 9);
  });

  it('is undefined without headroom to divide by, and exact for one seed', () => {
    expect(ratioOfMeansInterval([0.1, 0.2], [0, 0])).toBeUndefined();
    expect(ratioOfMeansInterval([0.1, 0.2], [0.01, -0.01])).toBeUndefined();
    expect(ratioOfMeansInterval([0.1], [0.2], 0.5)).toBeUndefined();
    expect(ratioOfMeansInterval([], [])).toBeUndefined();
    expect(ratioOfMeansInterval([0.1], [0.4])).toMatchObject({ n: 1, mean: 0.25, low: 0.25, high: 0.25 });
  });
});
