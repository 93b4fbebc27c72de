import { ConfigError, InvalidArgumentError, type TokenLossFn, type TokenLossInput } from '@mage-rl/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { klEdges, lowVarianceKl, lowVarianceKlGrad } from './kl';
import { ppoTokenLoss } from './ppo-token-loss';
import { weightedNllLoss } from './weighted-nll-loss';

const f32 = (xs: readonly number[]) => Float32Array.from(xs);

function input(t: {
  logprobs: number[];
  old?: number[];
  ref?: number[];
  adv: number[];
  rows?: number[];
}): TokenLossInput {
  const n = t.logprobs.length;
  return {
    logprobs: f32(t.logprobs),
    oldLogprobs: f32(t.old ?? t.logprobs),
    ...(t.ref ? { refLogprobs: f32(t.ref) } : {}),
    advantages: f32(t.adv),
    rowOfToken: Int32Array.from(t.rows ?? Array.from({ length: n }, () => 0)),
  };
}

/** Central finite difference of the scalar loss in logprobs[j], using the float32-representable step. */
function fdGrad(fn: TokenLossFn, inp: TokenLossInput, j: number, h = 1e-3): number {
  const plus = Float32Array.from(inp.logprobs);
  const minus = Float32Array.from(inp.logprobs);
  plus[j] = (inp.logprobs[j] as number) + h;
  minus[j] = (inp.logprobs[j] as number) - h;
  const lp = fn({ ...inp, logprobs: plus }).loss;
  const lm = fn({ ...inp, logprobs: minus }).loss;
  return (lp - lm) / ((plus[j] as number) - (minus[j] as number));
}

describe('ppoTokenLoss', () => {
  it('on-policy: w = A / N, loss = −mean(A)', () => {
    const out = ppoTokenLoss()(input({ logprobs: [-1, -2, -0.5, -3], adv: [1, -2, 0.5, 0] }));
    expect([...out.weights]).toEqual([0.25, -0.5, 0.125, 0]);
    expect(out.loss).toBeCloseTo(-(1 - 2 + 0.5) / 4, 7);
    expect(out.stats.clipFraction).toBe(0);
    expect(out.stats.approxKl).toBe(0);
    expect(out.stats.ratioMean).toBe(1);
  });

  it('clips: no gradient where the clipped term is active', () => {
    const lr = Math.log(1.5); // ratio 1.5 > 1.2
    const out = ppoTokenLoss()(
      input({ logprobs: [lr, -lr, lr, -lr], old: [0, 0, 0, 0], adv: [1, -1, -1, 1] }),
    );
    // A>0, ρ>1+ε: clipped, constant. A<0, ρ<1−ε: clipped, constant. The other two stay unclipped.
    expect(out.weights[0]).toBe(0);
    expect(out.weights[1]).toBe(0);
    expect(out.weights[2]).toBeCloseTo((-1 * 1.5) / 4, 6);
    expect(out.weights[3]).toBeCloseTo((1 * (1 / 1.5)) / 4, 6);
    expect(out.stats.clipFraction).toBe(0.5);
    expect(out.loss).toBeCloseTo((-1.2 + 0.8 + 1.5 - 1 / 1.5) / 4, 6);
  });

  it('dual clip caps the loss of A < 0 at −c·A', () => {
    const out = ppoTokenLoss({ dualClip: 3 })(input({ logprobs: [Math.log(5)], old: [0], adv: [-2] }));
    expect(out.loss).toBeCloseTo(6, 6);
    expect(out.weights[0]).toBe(0);
    expect(out.stats.dualClipFraction).toBe(1);
    const off = ppoTokenLoss({ dualClip: null })(input({ logprobs: [Math.log(5)], old: [0], adv: [-2] }));
    expect(off.loss).toBeCloseTo(10, 5);
  });

  it('KL: the k3 estimator, and beyond the clamp its tangent, so the gradient is held and never 0', () => {
    expect(lowVarianceKl(-1, -1)).toBe(0);
    expect(lowVarianceKl(-1, -0.5)).toBeCloseTo(Math.exp(0.5) - 0.5 - 1, 12);
    const { lo, hi } = klEdges(10);
    for (const d of [lo, hi]) expect(Math.exp(d) - d - 1).toBeCloseTo(10, 10);
    expect(lo).toBeLessThan(0);
    expect(hi).toBeGreaterThan(0);
    // d = 8 > hi: the reference finds the token far likelier than the policy does.
    const slope = Math.exp(hi) - 1;
    expect(lowVarianceKl(-10, -2)).toBeCloseTo(10 + slope * (8 - hi), 10);
    expect(lowVarianceKlGrad(-10, -2)).toBeCloseTo(-slope, 10);
    // d = −28 < lo: the policy puts a token the reference all but rules out (a collapsed note).
    expect(lowVarianceKl(-2, -30)).toBeCloseTo(10 + (Math.exp(lo) - 1) * (-28 - lo), 10);
    expect(lowVarianceKlGrad(-2, -30)).toBeCloseTo(1 - Math.exp(lo), 10);
    expect(lowVarianceKlGrad(-2, -30)).toBeGreaterThan(0.99);
    const fn = ppoTokenLoss({ klCoef: 0.1 });
    const out = fn(input({ logprobs: [-1, -10, -2], ref: [-0.5, -2, -30], adv: [0, 0, 0] }));
    const ks = [Math.exp(0.5) - 1.5, lowVarianceKl(-10, -2), lowVarianceKl(-2, -30)];
    expect(out.loss).toBeCloseTo((0.1 * (ks[0]! + ks[1]! + ks[2]!)) / 3, 5);
    expect(out.weights[0]).toBeCloseTo((-0.1 * (1 - Math.exp(0.5))) / 3, 6);
    expect(out.weights[1]).toBeCloseTo((-0.1 * -slope) / 3, 5);
    expect(out.weights[2]).toBeCloseTo((-0.1 * (1 - Math.exp(lo))) / 3, 6);
    expect(out.stats.refKl).toBeCloseTo((ks[0]! + ks[1]! + ks[2]!) / 3, 4);
  });

  it("klUpperEdge 'release-advantaged': flat beyond d_hi where A ≠ 0, held where A = 0 and below d_lo", () => {
    const { hi } = klEdges(10);
    const slope = Math.exp(hi) - 1;
    // d = 8 > d_hi on tokens 0 (A = 0) and 1 (A = −1); d = −28 < d_lo on token 2 (A = 1).
    const inp = input({ logprobs: [-10, -10, -2], ref: [-2, -2, -30], adv: [0, -1, 1] });
    const held = ppoTokenLoss({ klCoef: 0.1 })(inp);
    const released = ppoTokenLoss({ klCoef: 0.1, klUpperEdge: 'release-advantaged' })(inp);
    expect(released.weights[0]).toBeCloseTo((-0.1 * -slope) / 3, 5);
    expect(released.weights[0]).toBe(held.weights[0]);
    // Token 1 keeps only its policy-gradient weight: A·ρ / N with ρ = 1.
    expect(released.weights[1]).toBeCloseTo(-1 / 3, 6);
    expect(held.weights[1]).toBeCloseTo((-1 - 0.1 * -slope) / 3, 5);
    expect(released.weights[2]).toBe(held.weights[2]);
    // The released token's KL stays at the clamp: it is continuous at d_hi and flat beyond.
    const atClamp = (0.1 * 10) / 3;
    expect(held.loss - released.loss).toBeCloseTo((0.1 * lowVarianceKl(-10, -2)) / 3 - atClamp, 5);
    expect(() => ppoTokenLoss({ klUpperEdge: 'loose' as never })).toThrow(/klUpperEdge/);
  });

  it('seq-mean-token-mean weighs every row equally', () => {
    const out = ppoTokenLoss({ aggregation: 'seq-mean-token-mean' })(
      input({ logprobs: [-1, -1, -1, -1], adv: [1, 1, 1, 1], rows: [0, 1, 1, 1] }),
    );
    expect(out.weights[0]).toBeCloseTo(0.5, 7);
    expect(out.weights[1]).toBeCloseTo(1 / 6, 7);
  });

  it('weights equal −∂loss/∂logπ (finite differences, random inputs away from the kinks)', () => {
    const token = fc.record({
      logRatio: fc.double({ min: -1.5, max: 1.5, noNaN: true }),
      old: fc.double({ min: -6, max: -0.05, noNaN: true }),
      // Across both edges of the KL clamp (d_lo ≈ −11, d_hi ≈ 2.5), where k3 continues along its tangent.
      refGap: fc.double({ min: -15, max: 5, noNaN: true }),
      adv: fc.double({ min: -3, max: 3, noNaN: true }),
      row: fc.integer({ min: 0, max: 3 }),
    });
    const fns = [
      ppoTokenLoss({ klCoef: 0.1 }),
      ppoTokenLoss({
        clip: 0.1,
        clipHigh: 0.3,
        dualClip: 2,
        klCoef: 0.5,
        aggregation: 'seq-mean-token-mean',
      }),
      ppoTokenLoss({ dualClip: null }),
      ppoTokenLoss({ klCoef: 0.2, klUpperEdge: 'release-advantaged' }),
    ];
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 12 }), fc.nat({ max: 3 }), (tokens, which) => {
        const fn = fns[which] as TokenLossFn;
        const inp = input({
          logprobs: tokens.map((t) => t.old + t.logRatio),
          old: tokens.map((t) => t.old),
          ref: tokens.map((t) => t.old + t.logRatio + t.refGap),
          adv: tokens.map((t) => t.adv),
          rows: tokens.map((t) => t.row),
        });
        const out = fn(inp);
        tokens.forEach((t, j) => {
          // skip tokens within the FD step of a kink (ratio at 1 ± ε, dual-clip boundary)
          const r = Math.exp((inp.logprobs[j] as number) - (inp.oldLogprobs[j] as number));
          const nearKink = [0.8, 0.9, 1.2, 1.3].some((k) => Math.abs(r - k) < 5e-3) || Math.abs(t.adv) < 1e-3;
          const dualEdge = [2, 3].some((c) => Math.abs(r - c) < 1e-2);
          // The released KL has a kink at d_hi (its gradient drops to 0).
          const klEdge = Math.abs(t.refGap - klEdges(10).hi) < 5e-3;
          if (nearKink || dualEdge || klEdge) return;
          const fd = fdGrad(fn, inp, j);
          expect(Math.abs(-fd - (out.weights[j] as number))).toBeLessThan(2e-3 * (1 + Math.abs(fd)));
        });
      }),
      { seed: 7, numRuns: 150 },
    );
  });

  it('validates options and inputs', () => {
    expect(() => ppoTokenLoss({ clip: 0 })).toThrow(ConfigError);
    expect(() => ppoTokenLoss({ dualClip: 1 })).toThrow(ConfigError);
    expect(() => ppoTokenLoss({ klCoef: -1 })).toThrow(ConfigError);
    expect(() => ppoTokenLoss({ klCoef: 0.1 })(input({ logprobs: [-1], adv: [1] }))).toThrow(
      InvalidArgumentError,
    );
    const bad = { ...input({ logprobs: [-1, -2], adv: [1, 1] }), advantages: f32([1]) };
    expect(() => ppoTokenLoss()(bad)).toThrow(/advantages/);
  });

  it('an empty mini-batch gives loss 0', () => {
    const out = ppoTokenLoss()(input({ logprobs: [], adv: [] }));
    expect(out.loss).toBe(0);
    expect(out.weights).toHaveLength(0);
  });
});

describe('weightedNllLoss', () => {
  it('is token-mean cross-entropy with weights 1/N', () => {
    const out = weightedNllLoss()(input({ logprobs: [-1, -2, -3, -2], adv: [0, 0, 0, 0] }));
    expect([...out.weights]).toEqual([0.25, 0.25, 0.25, 0.25]);
    expect(out.loss).toBeCloseTo(2, 7);
    expect(out.stats.perplexity).toBeCloseTo(Math.exp(2), 6);
  });

  it('weights match finite differences', () => {
    const fn = weightedNllLoss({ aggregation: 'seq-mean-token-mean' });
    const inp = input({ logprobs: [-1, -2, -3], adv: [0, 0, 0], rows: [0, 0, 1] });
    const out = fn(inp);
    for (let j = 0; j < 3; j++) expect(-fdGrad(fn, inp, j)).toBeCloseTo(out.weights[j] as number, 4);
    expect(out.weights[2]).toBeCloseTo(0.5, 7);
  });
});
