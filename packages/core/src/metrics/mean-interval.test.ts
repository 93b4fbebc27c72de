import { describe, expect, it } from 'vitest';
import { meanInterval } from './mean-interval';

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
