/**
 * The model behind the fake Tinker service: a table of next-token logits keyed by the whole prefix
 * (every distinct context has its own softmax over the ids `0 … vocabSize − 1`; unseen contexts are
 * uniform). It is tiny and exact, so forward passes return real log-probs, the built-in losses have
 * exact gradients, and Adam steps change what the model samples. Input ids may be any integer ≥ 0 (the
 * prompt's text); ids at or above `vocabSize` are context only: never sampled, scored as log-prob 0 and
 * refused as targets with a nonzero weight or advantage.
 */

import { at, type Rng, samplingWeights } from '@mage-rl/core';
import type { AdamParams } from '../api/wire';

export interface FakeModelWeights {
  /** Context key (ids joined by `,`) → logits. */
  readonly table: Map<string, Float64Array>;
}

export interface FakeOptimizerState {
  step: number;
  readonly m: Map<string, Float64Array>;
  readonly v: Map<string, Float64Array>;
}

export const contextKey = (tokens: readonly number[], end: number): string => tokens.slice(0, end).join(',');

/** Log-softmax of the logits of `key` (uniform when the table has none). */
export function logSoftmaxOf(weights: FakeModelWeights, key: string, vocabSize: number): Float64Array {
  const logits = weights.table.get(key);
  const out = new Float64Array(vocabSize);
  if (logits === undefined) return out.fill(-Math.log(vocabSize));
  let max = Number.NEGATIVE_INFINITY;
  for (const l of logits) max = Math.max(max, l);
  let sum = 0;
  for (const l of logits) sum += Math.exp(l - max);
  const logZ = max + Math.log(sum);
  for (const [i, l] of logits.entries()) out[i] = l - logZ;
  return out;
}

/** Adds `dLoss/dlogprob · ∂logprob(target)/∂logits` of one position to `grads`. */
export function addLogprobGradient(
  grads: Map<string, Float64Array>,
  key: string,
  logprobs: Float64Array,
  target: number,
  dLossDLogprob: number,
): void {
  if (dLossDLogprob === 0) return;
  let g = grads.get(key);
  if (g === undefined) {
    g = new Float64Array(logprobs.length);
    grads.set(key, g);
  }
  for (const [k, lp] of logprobs.entries()) {
    g[k] = at(g, k) + dLossDLogprob * ((k === target ? 1 : 0) - Math.exp(lp));
  }
}

/** One Adam step (decoupled weight decay, global-norm clipping when `grad_clip_norm` > 0). */
export function adamStep(
  weights: FakeModelWeights,
  optimizer: FakeOptimizerState,
  grads: Map<string, Float64Array>,
  params: AdamParams,
  vocabSize: number,
): { gradNorm: number } {
  let squares = 0;
  for (const g of grads.values()) for (const x of g) squares += x * x;
  const gradNorm = Math.sqrt(squares);
  const scale =
    params.grad_clip_norm > 0 && gradNorm > params.grad_clip_norm ? params.grad_clip_norm / gradNorm : 1;
  optimizer.step++;
  const t = optimizer.step;
  const c1 = 1 - params.beta1 ** t;
  const c2 = 1 - params.beta2 ** t;
  for (const [key, g] of grads) {
    const logits = weights.table.get(key) ?? new Float64Array(vocabSize);
    const m = optimizer.m.get(key) ?? new Float64Array(vocabSize);
    const v = optimizer.v.get(key) ?? new Float64Array(vocabSize);
    for (let k = 0; k < vocabSize; k++) {
      const gk = at(g, k) * scale;
      m[k] = params.beta1 * at(m, k) + (1 - params.beta1) * gk;
      v[k] = params.beta2 * at(v, k) + (1 - params.beta2) * gk * gk;
      const update = at(m, k) / c1 / (Math.sqrt(at(v, k) / c2) + params.eps);
      logits[k] =
        at(logits, k) * (1 - params.learning_rate * params.weight_decay) - params.learning_rate * update;
    }
    weights.table.set(key, logits);
    optimizer.m.set(key, m);
    optimizer.v.set(key, v);
  }
  return { gradNorm };
}

export interface FakeSampling {
  readonly maxTokens: number;
  readonly temperature: number;
  /** −1 or 0: no limit. */
  readonly topK: number;
  readonly topP: number;
  /** Stops after any of these ids (the id is kept in the output). */
  readonly stopTokens: ReadonlySet<number>;
  /** Stops once the decoded output contains any of these strings. */
  readonly stopStrings: readonly string[];
  readonly decode?: (tokens: readonly number[]) => string;
}

/** Samples one continuation of `prompt`; log-probs are the model's own (temperature 1). */
export function sampleSequence(
  weights: FakeModelWeights,
  prompt: readonly number[],
  sampling: FakeSampling,
  vocabSize: number,
  rng: Rng,
): { tokens: number[]; logprobs: number[]; stopReason: 'stop' | 'length' } {
  const context = [...prompt];
  const tokens: number[] = [];
  const logprobs: number[] = [];
  while (tokens.length < sampling.maxTokens) {
    const lp = logSoftmaxOf(weights, context.join(','), vocabSize);
    const token = draw(lp, sampling, rng);
    tokens.push(token);
    logprobs.push(at(lp, token));
    context.push(token);
    if (sampling.stopTokens.has(token)) return { tokens, logprobs, stopReason: 'stop' };
    if (sampling.stopStrings.length > 0 && sampling.decode) {
      const text = sampling.decode(tokens);
      if (sampling.stopStrings.some((s) => text.includes(s))) return { tokens, logprobs, stopReason: 'stop' };
    }
  }
  return { tokens, logprobs, stopReason: 'length' };
}

function draw(lp: Float64Array, sampling: FakeSampling, rng: Rng): number {
  const ranked = [...lp.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  if (sampling.temperature <= 0) return at(ranked, 0)[0];
  const kept = sampling.topK > 0 ? ranked.slice(0, sampling.topK) : ranked;
  const weights = samplingWeights(
    kept.map(([, l]) => l),
    sampling.temperature,
    sampling.topP,
  );
  return at(kept, rng.weighted(weights))[0];
}
