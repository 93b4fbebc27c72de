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

/** log softmax(lp / temperature)[token]: a token's log-prob at another temperature, from log-probs `lp`. */
export function logprobAt(lp: Float32Array, token: number, temperature: number): number {
  const invT = 1 / temperature;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < lp.length; i++) max = Math.max(max, lp[i]!);
  let total = 0;
  for (let i = 0; i < lp.length; i++) total += Math.exp((lp[i]! - max) * invT);
  return (lp[token]! - max) * invT - Math.log(total);
}

/** Draws a token id from log-probs `lp` (one row of length vocab). */
export function sampleToken(lp: Float32Array, params: SamplingParams, rng: Rng): number {
  if (params.temperature <= 0) return argmax(lp);
  const invT = 1 / params.temperature;
  const V = lp.length;
  const k = params.topK > 0 && params.topK < V ? params.topK : V;
  return k === V && params.topP >= 1 ? sampleFull(lp, invT, rng) : sampleTop(lp, k, params.topP, invT, rng);
}

/** The weights of `sampleFull`, reused across calls (a vocabulary-sized array per token is GC churn). */
let weights = new Float64Array(0);

/** A draw from the whole distribution at temperature 1/`invT`. */
function sampleFull(lp: Float32Array, invT: number, rng: Rng): number {
  const V = lp.length;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < V; i++) max = Math.max(max, lp[i]!);
  if (weights.length < V) weights = new Float64Array(V);
  const w = weights;
  let total = 0;
  for (let i = 0; i < V; i++) {
    const e = Math.exp((lp[i]! - max) * invT);
    w[i] = e;
    total += e;
  }
  let r = rng.next() * total;
  for (let i = 0; i < V; i++) {
    r -= w[i]!;
    if (r < 0) return i;
  }
  return argmax(lp);
}

interface Candidate {
  readonly id: number;
  readonly v: number;
}

/**
 * The `k` largest entries of `lp` by decreasing value, ties by increasing id (so results are
 * deterministic). Below the vocabulary size a bounded min-heap selects them in one pass, O(V log k)
 * instead of sorting the whole vocabulary for every token.
 */
export function topCandidates(lp: Float32Array, k: number): Candidate[] {
  if (k >= lp.length) {
    return Array.from(lp, (v, id) => ({ id, v })).sort((a, b) => b.v - a.v || a.id - b.id);
  }
  // heap[0] is the worst kept candidate: the smallest value, and of equal values the largest id.
  const worse = (a: Candidate, b: Candidate) => a.v < b.v || (a.v === b.v && a.id > b.id);
  const heap: Candidate[] = [];
  const siftDown = (start: number) => {
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && worse(heap[r]!, heap[m]!)) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  };
  for (let id = 0; id < lp.length; id++) {
    const v = lp[id]!;
    if (heap.length < k) {
      heap.push({ id, v });
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!worse(heap[i]!, heap[parent]!)) break;
        [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
        i = parent;
      }
    } else if (v > heap[0]!.v) {
      // Ids arrive in increasing order, so an equal value never displaces a kept one.
      heap[0] = { id, v };
      siftDown(0);
    }
  }
  return heap.sort((a, b) => b.v - a.v || a.id - b.id);
}

/** A draw among the `k` most likely ids, cut further to the nucleus of mass `topP` when it is below 1. */
function sampleTop(lp: Float32Array, k: number, topP: number, invT: number, rng: Rng): number {
  const top = topCandidates(lp, k);
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
