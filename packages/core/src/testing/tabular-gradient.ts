/**
 * One mini-batch of the tabular learner: the token-loss input, the gradient of −Σ w·log p minus the
 * entropy bonus over each key's logits, and the clipped Adam or SGD step.
 */

import type { LearnerRowV1, TokenLossInput } from '@mage-rl/spec';
import { at } from '@mage-rl/spec';
import { tokenLossInputOf } from '../training/token-loss-input';
import { entryFor, logprobsOf, type TabularState } from './tabular-state';

/** A row of the mini-batch with its table key. */
export interface KeyedRow {
  readonly row: LearnerRowV1;
  readonly key: string;
}

const BETA1 = 0.9;
const BETA2 = 0.999;
const EPS = 1e-8;

/** The loss function's input: every response token's current, old and reference log-probs and advantage. */
export function tokenLossInput(state: TabularState, batch: readonly KeyedRow[]): TokenLossInput {
  const lp = new Float64Array(state.candidates.length);
  const current = batch.map(({ row, key }) => {
    logprobsOf(state, key, lp);
    return row.responseTokens.map((t) => at(lp, t));
  });
  return tokenLossInputOf(
    batch.map(({ row }) => row),
    current,
  );
}

/**
 * Gradient of −Σ w·log p(a) − (c/N)·Σ H over the logits of each row's key (N = the batch's tokens), and
 * the summed per-token entropy H.
 */
export function gradients(
  state: TabularState,
  batch: readonly KeyedRow[],
  weights: Float32Array,
  entropyCoef: number,
  tokens: number,
): { grads: Map<string, Float64Array>; entropy: number } {
  const grads = new Map<string, Float64Array>();
  const lp = new Float64Array(state.candidates.length);
  let entropy = 0;
  let k = 0;
  for (const { row, key } of batch) {
    logprobsOf(state, key, lp);
    let g = grads.get(key);
    if (!g) {
      g = new Float64Array(lp.length);
      grads.set(key, g);
    }
    let h = 0;
    for (const l of lp) h -= Math.exp(l) * l;
    for (const t of row.responseTokens) {
      addTokenGradient(g, lp, t, at(weights, k++), entropyCoef / tokens, h);
      entropy += h;
    }
  }
  return { grads, entropy };
}

/**
 * d(−w log p_t)/dθ_c = −w (1[c = t] − p_c);  d(−s·H)/dθ_c = s p_c (log p_c + H), with s the entropy
 * coefficient per token.
 */
function addTokenGradient(
  g: Float64Array,
  lp: Float64Array,
  t: number,
  w: number,
  s: number,
  h: number,
): void {
  lp.forEach((l, c) => {
    const p = Math.exp(l);
    g[c] = at(g, c) - w * ((c === t ? 1 : 0) - p) + s * p * (l + h);
  });
}

/** The global L2 norm of every key's gradient. */
export function gradNorm(grads: ReadonlyMap<string, Float64Array>): number {
  let sq = 0;
  for (const g of grads.values()) for (const x of g) sq += x ** 2;
  return Math.sqrt(sq);
}

/** One optimizer step (`state.step` counts it) with every gradient scaled by `clip`. */
export function applyStep(state: TabularState, grads: ReadonlyMap<string, Float64Array>, clip: number): void {
  const { lr, optimizer } = state.settings;
  state.step++;
  const bc1 = 1 - BETA1 ** state.step;
  const bc2 = 1 - BETA2 ** state.step;
  for (const [key, g] of grads) {
    const e = entryFor(state, key);
    g.forEach((raw, c) => {
      const gc = raw * clip;
      if (optimizer === 'sgd') {
        e.logits[c] = at(e.logits, c) - lr * gc;
        return;
      }
      const m = BETA1 * at(e.m, c) + (1 - BETA1) * gc;
      const v = BETA2 * at(e.v, c) + (1 - BETA2) * gc * gc;
      e.m[c] = m;
      e.v[c] = v;
      e.logits[c] = at(e.logits, c) - (lr * (m / bc1)) / (Math.sqrt(v / bc2) + EPS);
    });
  }
}
