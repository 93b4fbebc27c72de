/**
 * The PPO token weights (`PpoWeightFormV1`) computed inside the training graph from the log-probs it has
 * just computed, so that an update needs no scoring pass before each mini-batch. The weights are
 * constants of the backward pass (a stop-gradient), exactly as when they come in as an input.
 *
 * Inputs, one per scored position (zeros on padding, whose scale is 0): `old_logprobs`, `ref_logprobs`,
 * `advantages`, `scales`; and `ppo_params` [7]: ratioLow, ratioHigh, dualClip (∞ for none), klCoef,
 * klEdges.lo, klEdges.hi, releaseAdvantaged (0 or 1). Feeding the constants keeps one graph per bucket
 * whatever the loss's settings.
 */

import type { PpoWeightFormV1 } from '@mage-rl/core';
import type { Graph } from '../graph/graph';
import type { Tensor } from '../graph/tensor';

/** The order of `ppo_params`. */
export const PPO_PARAMS = [
  'ratioLow',
  'ratioHigh',
  'dualClip',
  'klCoef',
  'klLo',
  'klHi',
  'releaseAdvantaged',
] as const;

/** The `ppo_params` feed of a loss's closed form, in `PPO_PARAMS` order. */
export function ppoParams(form: PpoWeightFormV1): Float32Array {
  const values: Record<(typeof PPO_PARAMS)[number], number> = {
    ratioLow: form.ratioLow,
    ratioHigh: form.ratioHigh,
    dualClip: form.dualClip,
    klCoef: form.klCoef,
    klLo: form.klEdges.lo,
    klHi: form.klEdges.hi,
    releaseAdvantaged: Number(form.releaseAdvantaged),
  };
  return Float32Array.from(PPO_PARAMS, (name) => values[name]);
}

/**
 * log ρ is capped here before exp, so that ρ stays finite in float32. Where the cap binds the token's
 * weight is 0 anyway (clipped for A > 0, dual-clipped for A < 0) or −0 (A = 0).
 */
const MAX_LOG_RATIO = 80;

export interface PpoWeightInputs {
  readonly oldLogprobs: Tensor;
  readonly refLogprobs: Tensor;
  readonly advantages: Tensor;
  readonly scales: Tensor;
  readonly params: Tensor;
}

/** Adds the inputs of the in-graph PPO weights for M scored positions. */
export function addPpoWeightInputs(g: Graph, M: number): PpoWeightInputs {
  return {
    oldLogprobs: g.input('old_logprobs', [M], g.float),
    refLogprobs: g.input('ref_logprobs', [M], g.float),
    advantages: g.input('advantages', [M], g.float),
    scales: g.input('scales', [M], g.float),
    params: g.input('ppo_params', [PPO_PARAMS.length], g.float),
  };
}

/** w = −s·(g_pg + g_kl) at the log-probs `logprobs` [M] (no gradient flows through w). */
export function ppoWeights(g: Graph, logprobs: Tensor, inputs: PpoWeightInputs): Tensor {
  const shape = logprobs.shape;
  const bool = { dtype: 'bool' as const, shape };
  const float = { dtype: g.float, shape };
  const param = (name: (typeof PPO_PARAMS)[number]) => {
    const i = PPO_PARAMS.indexOf(name);
    return g.slice(inputs.params, 0, i, i + 1);
  };
  const lp = g.stopGradient(logprobs);
  const A = inputs.advantages;
  const zero = g.scalar(0);
  const maxOf = (a: Tensor, b: Tensor) => g.raw('Max', [a, b], float);
  const minOf = (a: Tensor, b: Tensor) => g.raw('Min', [a, b], float);
  const greater = (a: Tensor, b: Tensor) => g.raw('Greater', [a, b], bool);
  const and = (a: Tensor, b: Tensor) => g.raw('And', [a, b], bool);

  const ratio = g.exp(minOf(g.sub(lp, inputs.oldLogprobs), g.scalar(MAX_LOG_RATIO)));
  const unclipped = g.neg(g.mul(A, ratio));
  const clippedLoss = g.neg(g.mul(A, minOf(maxOf(ratio, param('ratioLow')), param('ratioHigh'))));
  const clipped = greater(clippedLoss, unclipped);
  const pg = g.where(clipped, clippedLoss, unclipped);
  const dualHit = and(greater(zero, A), greater(pg, g.neg(g.mul(param('dualClip'), A))));
  const gradPg = g.where(g.raw('Or', [clipped, dualHit], bool), g.zeros(shape), unclipped);

  const d = g.sub(inputs.refLogprobs, lp);
  const held = minOf(maxOf(d, param('klLo')), param('klHi'));
  const klGrad = g.mul(param('klCoef'), g.sub(g.scalar(1), g.exp(held)));
  const released = and(
    and(greater(param('releaseAdvantaged'), zero), g.raw('Not', [g.raw('Equal', [A, zero], bool)], bool)),
    greater(d, param('klHi')),
  );
  const gradKl = g.where(released, g.zeros(shape), klGrad);
  return g.stopGradient(g.neg(g.mul(inputs.scales, g.add(gradPg, gradKl))));
}
