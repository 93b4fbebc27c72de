import { describe, expect, it } from 'vitest';
import { effectiveTrajGamma, metaRewards } from './meta-reward';

describe('metaRewards', () => {
  it('differential rewards improvement over the previous attempt', () => {
    expect([...metaRewards([-10, 0, 10], 'differential')]).toEqual([-10, 10, 10]);
    expect([...metaRewards([10, 10, -10], 'differential')]).toEqual([10, 0, -20]);
  });

  it('cumulative and single keep the episode rewards', () => {
    expect([...metaRewards([-10, 0, 10], 'cumulative')]).toEqual([-10, 0, 10]);
    expect([...metaRewards([-10, 0, 10], 'single')]).toEqual([-10, 0, 10]);
  });

  it('may write in place', () => {
    const r = Float64Array.of(1, 3, 6);
    expect(metaRewards(r, 'differential', r)).toBe(r);
    expect([...r]).toEqual([1, 2, 3]);
  });

  it('single never propagates across attempts', () => {
    expect(effectiveTrajGamma('single', 0.6)).toBe(0);
    expect(effectiveTrajGamma('differential', 0.6)).toBe(0.6);
  });
});
