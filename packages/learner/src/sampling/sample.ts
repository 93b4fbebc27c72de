/** Token sampling from a row of log-probs: temperature, top-k, top-p, driven by a seeded stream. */

import type { Rng } from '@mage-rl/core';

export interface SamplingParams {
  /** 0 = greedy. */
  readonly temperature: number;
  /** 0 = no top-k cut. */
  readonly topK: number;
  /** 1 = no nucleus cut. */
  readonly topP: number;
}

export const DEFAULT_SAMPLING: SamplingParams = { temperature: 1, topK: 0, topP: 1 };

export function argmax(x: ArrayLike<number>): number {
  let best = 0;
  let bestValue = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < x.length; i++) {
    const v = x[i];
    if (v !== undefined && v > bestValue) {
      bestValue = v;
      best = i;
    }
  }
  return best;
}

/** Draws a token id from log-probs `lp` (one row of length vocab). */
export function sampleToken(lp: Float32Array, params: SamplingParams, rng: Rng): number {
  if (params.temperature <= 0) return argmax(lp);
  const invT = 1 / params.temperature;
  const V = lp.length;
  const k = params.topK > 0 && params.topK < V ? params.topK : V;
  return k === V && params.topP >= 1 ? sampleFull(lp, invT, rng) : sampleTop(lp, k, params.topP, invT, rng);
}

/** A draw from the whole distribution at temperature 1/`invT`. */
function sampleFull(lp: Float32Array, invT: number, rng: Rng): number {
  let max = Number.NEGATIVE_INFINITY;
  for (const v of lp) max = Math.max(max, v);
  let total = 0;
  const w = new Float64Array(lp.length);
  lp.forEach((v, i) => {
    const e = Math.exp((v - max) * invT);
    w[i] = e;
    total += e;
  });
  let r = rng.next() * total;
  for (const [i, wi] of w.entries()) {
    r -= wi;
    if (r < 0) return i;
  }
  return argmax(lp);
}

/** A draw among the `k` most likely ids, cut further to the nucleus of mass `topP` when it is below 1. */
function sampleTop(lp: Float32Array, k: number, topP: number, invT: number, rng: Rng): number {
  // Candidates by decreasing probability (ties by id, so results are deterministic).
  const top = Array.from(lp, (v, id) => ({ id, v }))
    .sort((a, b) => b.v - a.v || a.id - b.id)
    .slice(0, k);
  const first = top[0];
  if (first === undefined) return argmax(lp);
  const candidates = top.map(({ id, v }) => ({ id, w: Math.exp((v - first.v) * invT) }));
  const total = candidates.reduce((p, c) => p + c.w, 0);
  let n = candidates.length;
  if (topP < 1) {
    let acc = 0;
    for (const [j, c] of candidates.entries()) {
      acc += c.w / total;
      if (acc >= topP) {
        n = j + 1;
        break;
      }
    }
  }
  const kept = candidates.slice(0, n);
  let r = rng.next() * kept.reduce((p, c) => p + c.w, 0);
  for (const c of kept) {
    r -= c.w;
    if (r < 0) return c.id;
  }
  return first.id;
}
