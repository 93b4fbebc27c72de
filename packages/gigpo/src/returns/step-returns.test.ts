import { InvalidArgumentError } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { metaRewards } from '../meta-reward/meta-reward';
import { slotStepReturns } from './step-returns';

describe('slotStepReturns', () => {
  it('reproduces the worked example of architecture/gigpo.md', () => {
    const r = slotStepReturns({
      metaRewards: metaRewards([-10, 0, 10], 'differential'),
      playTurns: [4, 5, 3],
    });
    const round = (xs: Float64Array) => [...xs].map((x) => Math.round(x * 1000) / 1000);
    expect(round(r.play[0] as Float64Array)).toEqual([-2.115, -2.226, -2.343, -2.467]);
    expect(round(r.play[1] as Float64Array)).toEqual([12.556, 13.216, 13.912, 14.644, 15.415]);
    expect(round(r.play[2] as Float64Array)).toEqual([9.025, 9.5, 10]);
    expect(round(r.reflect).slice(1)).toEqual([12.556, 9.025]);
  });

  it('does not propagate from an attempt that never ran', () => {
    const r = slotStepReturns({
      metaRewards: [10, 0, 0],
      playTurns: [2, 0, 0],
      stepGamma: 0.5,
      trajGamma: 1,
    });
    expect([...(r.play[0] as Float64Array)]).toEqual([5, 10]);
    expect(r.play[1]).toHaveLength(0);
    expect(r.reflect[1]).toBe(0);
  });

  it('rejects mismatched lengths', () => {
    expect(() => slotStepReturns({ metaRewards: [1, 2], playTurns: [1] })).toThrow(InvalidArgumentError);
  });
});
