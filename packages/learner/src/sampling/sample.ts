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
    const v = x[i] as number;
    if (v > bestValue) {
      bestValue = v;
      best = i;
    }
  }
  return best;
}

/** Draws a token id from log-probs `lp` (one row of length vocab). */
export function sampleToken(lp: Float32Array, params: SamplingParams, rng: Rng): number {
  const V = lp.length;
  if (params.temperature <= 0) return argmax(lp);
  const invT = 1 / params.temperature;
  const k = params.topK > 0 && params.topK < V ? params.topK : V;
  if (k === V && params.topP >= 1) {
    let max = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < V; i++) max = Math.max(max, lp[i] as number);
    let total = 0;
    const w = new Float64Array(V);
    for (let i = 0; i < V; i++) {
      const e = Math.exp(((lp[i] as number) - max) * invT);
      w[i] = e;
      total += e;
    }
    let r = rng.next() * total;
    for (let i = 0; i < V; i++) {
      r -= w[i] as number;
      if (r < 0) return i;
    }
    return argmax(lp);
  }
  // Candidates by decreasing probability (ties by id, so results are deterministic).
  const order = Array.from({ length: V }, (_, i) => i).sort(
    (a, b) => (lp[b] as number) - (lp[a] as number) || a - b,
  );
  const top = order.slice(0, k);
  const max = lp[top[0] as number] as number;
  const w = top.map((i) => Math.exp(((lp[i] as number) - max) * invT));
  const total = w.reduce((p, x) => p + x, 0);
  let n = top.length;
  if (params.topP < 1) {
    let acc = 0;
    for (let j = 0; j < top.length; j++) {
      acc += (w[j] as number) / total;
      if (acc >= params.topP) {
        n = j + 1;
        break;
      }
    }
  }
  let kept = 0;
  for (let j = 0; j < n; j++) kept += w[j] as number;
  let r = rng.next() * kept;
  for (let j = 0; j < n; j++) {
    r -= w[j] as number;
    if (r < 0) return top[j] as number;
  }
  return top[0] as number;
}
