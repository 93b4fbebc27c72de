import { MageError } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { createAdamW, createLrSchedule, globalNorm } from './adamw';

describe('AdamW', () => {
  it('matches a hand-computed first step with decoupled weight decay', () => {
    const params = new Map([['w', Float32Array.from([1, -2])]]);
    const opt = createAdamW({ lr: 0.1, weightDecay: 0.5, maxGradNorm: Number.POSITIVE_INFINITY });
    const r = opt.step(params, new Map([['w', Float32Array.from([0.5, -0.25])]]));
    expect(r.skipped).toBe(false);
    // First Adam step moves each weight by lr·sign(g) (bias-corrected), after decay w·(1 − lr·wd).
    const w = params.get('w') as Float32Array;
    expect(w[0]).toBeCloseTo(1 * 0.95 - 0.1, 5);
    expect(w[1]).toBeCloseTo(-2 * 0.95 + 0.1, 5);
  });

  it('minimises a quadratic', () => {
    const params = new Map([['w', Float32Array.from([3, -4, 5])]]);
    const opt = createAdamW({ lr: 0.1, weightDecay: 0 });
    for (let i = 0; i < 300; i++)
      opt.step(params, new Map([['w', Float32Array.from(params.get('w') as Float32Array, (x) => 2 * x)]]));
    for (const x of params.get('w') as Float32Array) expect(Math.abs(x)).toBeLessThan(0.05);
  });

  it('clips the global norm', () => {
    const params = new Map([
      ['a', new Float32Array(1)],
      ['b', new Float32Array(1)],
    ]);
    const opt = createAdamW({ lr: 0.1, maxGradNorm: 1 });
    const r = opt.step(
      params,
      new Map([
        ['a', Float32Array.from([3])],
        ['b', Float32Array.from([4])],
      ]),
    );
    expect(r.gradNorm).toBeCloseTo(5, 5);
    // m after clipping = 0.1·(3/5).
    expect(opt.state.m.get('a')?.[0]).toBeCloseTo(0.06, 5);
    expect(globalNorm([Float32Array.from([3, 4])], 2)).toBeCloseTo(10, 6);
  });

  it('skips NaN/Inf steps and aborts after three in a row', () => {
    const params = new Map([['w', Float32Array.from([1])]]);
    const opt = createAdamW({ lr: 0.1 });
    const bad = new Map([['w', Float32Array.from([Number.NaN])]]);
    expect(opt.step(params, bad).skipped).toBe(true);
    expect(opt.step(params, new Map([['w', Float32Array.from([Number.POSITIVE_INFINITY])]])).skipped).toBe(
      true,
    );
    expect(params.get('w')?.[0]).toBe(1);
    expect(opt.state.step).toBe(0);
    opt.step(params, new Map([['w', Float32Array.from([1])]]));
    expect(opt.state.consecutiveSkips).toBe(0);
    opt.step(params, bad);
    opt.step(params, bad);
    try {
      opt.step(params, bad);
      expect.unreachable();
    } catch (e) {
      expect(MageError.isInstance(e) && e.code).toBe('NUMERIC_INSTABILITY');
    }
  });
});

describe('learning-rate schedules', () => {
  it('warms up linearly and decays with a cosine to minRatio', () => {
    const s = createLrSchedule({ lr: 1, warmupSteps: 4, totalSteps: 14, decay: 'cosine', minRatio: 0.1 });
    expect(s(0)).toBeCloseTo(0.25);
    expect(s(3)).toBeCloseTo(1);
    expect(s(4)).toBeCloseTo(1);
    expect(s(9)).toBeCloseTo(0.55);
    expect(s(14)).toBeCloseTo(0.1);
    expect(s(100)).toBeCloseTo(0.1);
    const lin = createLrSchedule({ lr: 2, totalSteps: 10, decay: 'linear', minRatio: 0 });
    expect(lin(5)).toBeCloseTo(1);
  });
});
