import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeAdvantages } from './compute-advantages';
import type { AdvantageOptions, AdvantageRowInput } from './types';

const SEED = 20240601;
const ANCHORS = ['a', 'b', 'c', 'd'];

const turnArb = fc.record({
  anchor: fc.constantFrom(...ANCHORS),
  reward: fc.integer({ min: -10, max: 10 }),
  valid: fc.boolean(),
  responseTokens: fc.integer({ min: 0, max: 200 }),
});
/** A slot: 1..3 attempts of 1..5 play turns; a reflect row before every attempt k >= 1. */
const slotArb = fc.array(fc.array(turnArb, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 3 });
const groupArb = fc.array(slotArb, { minLength: 1, maxLength: 4 });

function groupRows(group: string, slots: (typeof turnArb extends fc.Arbitrary<infer T> ? T : never)[][][]) {
  const rows: AdvantageRowInput[] = [];
  slots.forEach((attempts, s) => {
    attempts.forEach((turns, k) => {
      if (k > 0) {
        rows.push({
          group,
          slot: `${group}/${s}`,
          attempt: k,
          phase: 'reflect',
          anchor: 'reflection|o',
          reward: 0,
          valid: true,
          responseTokens: 20,
        });
      }
      for (const t of turns) {
        rows.push({ group, slot: `${group}/${s}`, attempt: k, phase: 'play', ...t, anchor: `${t.anchor}|o` });
      }
    });
  });
  return rows;
}

const optionsArb: fc.Arbitrary<AdvantageOptions> = fc.record({
  metaReward: fc.constantFrom('differential', 'cumulative', 'single'),
  stepGamma: fc.double({ min: 0, max: 1, noNaN: true }),
  trajGamma: fc.double({ min: 0, max: 1, noNaN: true }),
  stepWeight: fc.double({ min: 0, max: 2, noNaN: true }),
  anchorScope: fc.constantFrom('global', 'local'),
  invalidPenalty: fc.double({ min: 0, max: 2, noNaN: true }),
  lengthPenalty: fc.constant({ coef: 1, maxTokens: 100 }),
});

describe('computeAdvantages properties', () => {
  it('advantages of a group sum to 0 under mean with the row baseline', () => {
    fc.assert(
      fc.property(groupArb, optionsArb, (slots, options) => {
        const rows = groupRows('g', slots);
        fc.pre(rows.length >= 2);
        const out = computeAdvantages(rows, { ...options, normalization: 'mean', episodeBaseline: 'row' });
        const scale = out.reduce((a, r) => a + Math.abs(r.advantage), 1);
        const sum = out.reduce((a, r) => a + r.advantage, 0);
        expect(Math.abs(sum) / scale).toBeLessThan(1e-9);
        const epSum = out.reduce((a, r) => a + r.episodeAdvantage, 0);
        expect(Math.abs(epSum) / scale).toBeLessThan(1e-9);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it("shifting every episode reward of a group by a constant leaves 'mean' advantages unchanged", () => {
    // Single-attempt slots; the shift goes onto each slot's terminal reward, so every R moves by c.
    // With γ_step = 1 every return and every score moves by the same c, and both baselines absorb it.
    const singleAttempt = fc.array(fc.array(turnArb, { minLength: 1, maxLength: 5 }), {
      minLength: 1,
      maxLength: 6,
    });
    fc.assert(
      fc.property(
        singleAttempt,
        fc.integer({ min: -20, max: 20 }),
        fc.constantFrom('row', 'trajectory'),
        fc.constantFrom('gigpo', 'grpo'),
        fc.constantFrom('differential', 'cumulative', 'single'),
        (slots, c, episodeBaseline, estimator, metaReward) => {
          const rows = groupRows(
            'g',
            slots.map((turns) => [turns]),
          );
          const shifted = rows.map((r, i) => {
            const next = rows[i + 1];
            const last = next === undefined || next.slot !== r.slot;
            return last ? { ...r, reward: r.reward + c } : r;
          });
          const options: AdvantageOptions = {
            normalization: 'mean',
            stepGamma: 1,
            episodeBaseline,
            estimator,
            metaReward,
          };
          // a group of one sample (one row, or one trajectory) has baseline 0 by definition: not invariant
          const perRow = estimator === 'gigpo' && episodeBaseline === 'row';
          fc.pre(perRow ? rows.length >= 2 : slots.length >= 2);
          const a = computeAdvantages(rows, options);
          const b = computeAdvantages(shifted, options);
          a.forEach((r, i) => {
            expect(b[i]?.advantage).toBeCloseTo(r.advantage, 9);
            expect(b[i]?.stepAdvantage).toBeCloseTo(r.stepAdvantage, 9);
          });
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
  });

  it("'differential' with γ_traj = γ_step = 1 telescopes to the last attempt's reward", () => {
    fc.assert(
      fc.property(slotArb, (attempts) => {
        const rows = groupRows('g', [attempts]);
        const out = computeAdvantages(rows, { metaReward: 'differential', stepGamma: 1, trajGamma: 1 });
        const R = attempts.map((turns) => turns.reduce((a, t) => a + t.reward, 0));
        const last = R[R.length - 1] as number;
        expect(out[0]?.return).toBeCloseTo(last, 9);
        // More generally every row of attempt k has return R_last − R_{k−1}.
        rows.forEach((row, i) => {
          const before = row.attempt === 0 ? 0 : (R[row.attempt - 1] as number);
          expect(out[i]?.return).toBeCloseTo(last - before, 9);
        });
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('groups are independent and rows of different slots may interleave', () => {
    fc.assert(
      fc.property(groupArb, groupArb, optionsArb, fc.boolean(), (g1, g2, options, meanStd) => {
        const opts: AdvantageOptions = { ...options, normalization: meanStd ? 'mean-std' : 'mean' };
        const a = groupRows('g1', g1);
        const b = groupRows('g2', g2);
        const alone = computeAdvantages(a, opts);
        // interleave a and b, keeping each slot's rows in order
        const mixed: AdvantageRowInput[] = [];
        const origin: number[] = [];
        for (let i = 0; i < Math.max(a.length, b.length); i++) {
          if (i < b.length) {
            mixed.push(b[i] as AdvantageRowInput);
            origin.push(-1);
          }
          if (i < a.length) {
            mixed.push(a[i] as AdvantageRowInput);
            origin.push(i);
          }
        }
        const together = computeAdvantages(mixed, opts);
        origin.forEach((src, j) => {
          if (src < 0) return;
          const want = alone[src];
          const got = together[j];
          expect(got?.advantage).toBeCloseTo(want?.advantage as number, 9);
          expect(got?.return).toBe(want?.return);
        });
      }),
      { seed: SEED, numRuns: 150 },
    );
  });

  it('episode advantages under mean-std have unit sample std in groups with spread', () => {
    fc.assert(
      fc.property(groupArb, (slots) => {
        const rows = groupRows('g', slots);
        const out = computeAdvantages(rows, { normalization: 'mean-std' });
        const scores = out.map((r) => r.score);
        fc.pre(rows.length >= 2 && Math.max(...scores) - Math.min(...scores) > 1e-3);
        const ep = out.map((r) => r.episodeAdvantage);
        const m = ep.reduce((x, y) => x + y, 0) / ep.length;
        const sd = Math.sqrt(ep.reduce((x, y) => x + (y - m) ** 2, 0) / (ep.length - 1));
        expect(sd).toBeCloseTo(1, 3);
      }),
      { seed: SEED, numRuns: 200 },
    );
  });
});
