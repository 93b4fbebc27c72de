import { describe, expect, it } from 'vitest';
import { lengthPenalty, rowPenalty } from './penalties';

describe('penalties', () => {
  const lp = { coef: 2, maxTokens: 100 };
  it('length penalty starts above M/2, grows linearly and saturates at M', () => {
    expect(lengthPenalty(0, lp)).toBe(0);
    expect(lengthPenalty(50, lp)).toBe(0);
    expect(lengthPenalty(75, lp)).toBeCloseTo(1, 12);
    expect(lengthPenalty(100, lp)).toBeCloseTo(2, 12);
    expect(lengthPenalty(1000, lp)).toBe(2);
  });

  it('row penalty adds the invalid-action penalty', () => {
    expect(rowPenalty(true, 10, 0.5, null)).toBe(0);
    expect(rowPenalty(false, 10, 0.5, null)).toBe(0.5);
    expect(rowPenalty(false, 100, 2, lp)).toBe(4);
  });
});
