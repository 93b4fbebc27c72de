/**
 * How a MAGE update becomes Tinker `forward_backward` calls. `exact` sends any `TokenLossFn` as it is:
 * the current log-probs come from a `forward` pass, the loss function turns them into per-token weights
 * w = −∂loss/∂log p, and `cross_entropy` with those weights back-propagates −Σ w·log p, which is the
 * `LearnerV1` contract itself (clipping, dual clip, KL to the reference and the aggregation included;
 * two passes per mini-batch). `ppo` and `importance_sampling` use Tinker's built-in losses in one pass
 * with per-token advantages; what they cannot express is listed in architecture/tinker.md.
 */

import type { LearnerRowV1 } from '@mage-rl/core';
import type { ForwardBackwardInput } from '../api/wire';
import { datumOf } from './datums';

export type TinkerLossMapping =
  | { readonly kind: 'exact' }
  /** Tinker's `ppo`: ratio clipped to [1 − clipLow, 1 + clipHigh]. */
  | { readonly kind: 'ppo'; readonly clipLow: number; readonly clipHigh: number }
  /** Tinker's `importance_sampling`: −Σ ratio·A, no clipping. */
  | { readonly kind: 'importance_sampling' };

export const TINKER_LOSS_KINDS = ['exact', 'ppo', 'importance_sampling'] as const;

/**
 * The one-pass `forward_backward` input of a built-in loss. Advantages are divided by the mini-batch's
 * response tokens: Tinker sums over tokens, MAGE's PPO loss (token-mean aggregation) averages.
 */
export function builtinLossInput(
  mapping: Exclude<TinkerLossMapping, { kind: 'exact' }>,
  rows: readonly LearnerRowV1[],
): ForwardBackwardInput {
  const tokens = rows.reduce((k, r) => k + r.responseTokens.length, 0);
  const data = rows.map((row, i) =>
    datumOf(row, i, {
      logprobs: row.oldLogprobs,
      advantages: new Array<number>(row.responseTokens.length).fill(row.advantage / Math.max(1, tokens)),
    }),
  );
  return mapping.kind === 'ppo'
    ? {
        data,
        loss_fn: 'ppo',
        loss_fn_config: {
          clip_low_threshold: 1 - mapping.clipLow,
          clip_high_threshold: 1 + mapping.clipHigh,
        },
      }
    : { data, loss_fn: 'importance_sampling' };
}

/** The `cross_entropy` input that back-propagates −Σ w·log p for the weights of the exact mapping. */
export function weightedCrossEntropyInput(
  rows: readonly LearnerRowV1[],
  weights: Float32Array,
): ForwardBackwardInput {
  let k = 0;
  const data = rows.map((row, i) => {
    const w = weights.subarray(k, k + row.responseTokens.length);
    k += row.responseTokens.length;
    return datumOf(row, i, { weights: w });
  });
  return { data, loss_fn: 'cross_entropy' };
}
