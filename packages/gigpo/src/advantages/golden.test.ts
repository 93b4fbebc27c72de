import { describe, expect, it } from 'vitest';
import fixture from './__fixtures__/advantages.json' with { type: 'json' };
import { computeAdvantages } from './compute-advantages';
import type { AdvantageOptions, AdvantageRowInput, AdvantageRowOutput } from './types';

interface Case {
  readonly name: string;
  readonly description: string;
  readonly options: AdvantageOptions;
  readonly rows: AdvantageRowInput[];
  readonly expected: AdvantageRowOutput[];
}

const cases = fixture.cases as unknown as Case[];
const byName = (name: string): Case => {
  const c = cases.find((x) => x.name === name);
  if (!c) throw new Error(`fixture case ${name} missing`);
  return c;
};
const FIELDS = ['return', 'score', 'episodeAdvantage', 'stepAdvantage', 'advantage'] as const;

describe('golden fixtures (__fixtures__/advantages.json)', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const out = computeAdvantages(c.rows, c.options);
    expect(out).toHaveLength(c.expected.length);
    out.forEach((row, i) => {
      const want = c.expected[i] as AdvantageRowOutput;
      for (const f of FIELDS) expect(row[f], `row ${i} ${f}`).toBeCloseTo(want[f], 6);
    });
  });
});

describe('the worked example of architecture/gigpo.md', () => {
  it('reproduces the returns printed there to 1e-3', () => {
    const out = computeAdvantages(byName('worked-example').rows);
    const returns = out.map((r) => r.return);
    // attempt 0 (4 turns), reflect, attempt 1 (5 turns), reflect, attempt 2 (3 turns)
    const spec = [
      -2.115, -2.226, -2.343, -2.467, 12.556, 12.556, 13.216, 13.912, 14.644, 15.415, 9.025, 9.025, 9.5, 10.0,
    ];
    returns.forEach((g, i) => {
      expect(Math.abs(g - (spec[i] as number)), `row ${i}`).toBeLessThan(1e-3);
    });
  });

  it('gives the hand-derived advantages of architecture/gigpo.md', () => {
    const out = computeAdvantages(byName('worked-example').rows);
    // episode part: scores −10 ×4, 0, +10 ×5, 0, +10 ×3; row-weighted mean 40/14
    expect(out[0]?.episodeAdvantage).toBeCloseTo(-10 - 40 / 14, 9);
    expect(out[4]?.episodeAdvantage).toBeCloseTo(-40 / 14, 9);
    // step part: x0 appears as the first turn of every attempt
    const x0 = [out[0], out[5], out[11]].map((r) => r?.return as number);
    const mean = (x0[0]! + x0[1]! + x0[2]!) / 3;
    expect(out[0]?.stepAdvantage).toBeCloseTo(x0[0]! - mean, 9);
    expect(out[0]?.stepAdvantage).toBeCloseTo(-8.603, 3);
    expect(out[5]?.stepAdvantage).toBeCloseTo(6.067, 3);
    expect(out[11]?.stepAdvantage).toBeCloseTo(2.536, 3);
    // the two reflect rows form their own step group
    expect(out[4]?.stepAdvantage).toBeCloseTo((12.5556 - 9.025) / 2, 3);
    expect(out[10]?.stepAdvantage).toBeCloseTo(-(12.5556 - 9.025) / 2, 3);
    // every other anchor is unique
    for (const i of [1, 2, 3, 6, 7, 8, 9, 12, 13]) expect(out[i]?.stepAdvantage).toBe(0);
  });
});

describe('acceptance cases', () => {
  it('early win: the winning slot has only attempt-0 rows and no propagation', () => {
    const c = byName('early-win');
    const out = computeAdvantages(c.rows, c.options);
    // slot A: 3 turns, +10 at the end, nothing after
    expect(out[0]?.return).toBeCloseTo(0.95 ** 2 * 10, 9);
    expect(out[2]?.return).toBeCloseTo(10, 9);
    // slot B: lost attempt 0 (r̃ = −10), won attempt 1 (r̃ = +20)
    expect(out[5]?.score).toBeCloseTo(-10, 9);
    expect(out[6]?.score).toBe(0);
    expect(out[7]?.score).toBeCloseTo(20, 9);
    // the reflect row of B takes attempt 1's first-turn return
    expect(out[6]?.return).toBeCloseTo(out[7]?.return as number, 12);
  });

  it('singleton step groups give 0', () => {
    for (const name of ['singleton-step-groups', 'singleton-step-groups-mean-std']) {
      const c = byName(name);
      for (const r of computeAdvantages(c.rows, c.options)) {
        expect(r.stepAdvantage).toBe(0);
        expect(r.advantage).toBe(r.episodeAdvantage);
      }
    }
  });

  it('a group of one uses mean 0 and std 1', () => {
    for (const name of ['group-of-one', 'group-of-one-mean-std']) {
      const c = byName(name);
      const [r] = computeAdvantages(c.rows, c.options);
      expect(r?.episodeAdvantage).toBe(7);
      expect(r?.stepAdvantage).toBe(0);
    }
    const c = byName('group-of-one-slot-trajectory');
    for (const r of computeAdvantages(c.rows, c.options)) expect(r.episodeAdvantage).toBe(r.score);
  });

  it('mean-std divides by the unbiased std + 1e-6', () => {
    const c = byName('mean-std');
    const out = computeAdvantages(c.rows, c.options);
    const scores = out.map((r) => r.score);
    const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
    const unbiased = Math.sqrt(scores.reduce((a, s) => a + (s - mean) ** 2, 0) / (scores.length - 1));
    out.forEach((r) => {
      expect(r.episodeAdvantage).toBeCloseTo((r.score - mean) / (unbiased + 1e-6), 9);
    });
    const biased = Math.sqrt(scores.reduce((a, s) => a + (s - mean) ** 2, 0) / scores.length);
    expect(out[0]?.episodeAdvantage).not.toBeCloseTo((scores[0]! - mean) / biased, 3);
  });

  it('local and global anchor scopes build different step groups', () => {
    const g = computeAdvantages(byName('anchors-global').rows, { anchorScope: 'global' });
    const l = computeAdvantages(byName('anchors-local').rows, { anchorScope: 'local' });
    expect(g[0]?.stepAdvantage).not.toBe(0);
    expect(g[4]?.stepAdvantage).not.toBe(0);
    for (const r of l) expect(r.stepAdvantage).toBe(0);
    g.forEach((r, i) => {
      expect(r.episodeAdvantage).toBe(l[i]?.episodeAdvantage);
      expect(r.return).toBe(l[i]?.return);
    });
  });

  it('penalties reach only the episode term', () => {
    const on = byName('penalties');
    const off = byName('penalties-off');
    const a = computeAdvantages(on.rows, on.options);
    const b = computeAdvantages(off.rows, off.options);
    a.forEach((r, i) => {
      expect(r.return).toBe(b[i]?.return);
      expect(r.stepAdvantage).toBe(b[i]?.stepAdvantage);
    });
    // row 0 invalid (−2); row 1 200 tokens of 100 (−2, saturated); row 3 80 tokens (−2 · 0.6)
    expect(a[0]?.score).toBeCloseTo(10 - 2, 9);
    expect(a[1]?.score).toBeCloseTo(10 - 2, 9);
    expect(a[2]?.score).toBeCloseTo(-10, 9);
    expect(a[3]?.score).toBeCloseTo(-10 - 1.2, 9);
  });

  it('GRPO on single-attempt slots: one sample per trajectory, no step part', () => {
    const c = byName('grpo-mean-std');
    const out = computeAdvantages(c.rows, c.options);
    for (const r of out) expect(r.stepAdvantage).toBe(0);
    // group g: trajectory values 10, 10, 0, −10 (mean 2.5), whatever their lengths
    const values = [10, 10, 0, -10];
    const std = Math.sqrt(values.reduce((a, v) => a + (v - 2.5) ** 2, 0) / 3);
    expect(out[0]?.advantage).toBeCloseTo((10 - 2.5) / (std + 1e-6), 9);
    expect(out[2]?.advantage).toBeCloseTo((10 - 2.5) / (std + 1e-6), 9);
    expect(out[5]?.advantage).toBeCloseTo((0 - 2.5) / (std + 1e-6), 9);
  });
});
