/**
 * Meta-reward transforms: what each attempt of a meta-episode is rewarded for.
 */

import { at, InvalidArgumentError } from '@mage-rl/spec';

/**
 * - `differential` (MAGE): r̃_0 = R_0, r̃_k = R_k − R_{k−1} — improvement over the previous attempt.
 * - `cumulative` (LaMer): r̃_k = R_k.
 * - `single` (plain RL): r̃_k = R_k and no propagation across attempts (γ_traj = 0).
 */
export type MetaRewardMode = 'differential' | 'cumulative' | 'single';

export const META_REWARD_MODES: readonly MetaRewardMode[] = ['differential', 'cumulative', 'single'];

/**
 * Meta-rewards r̃ of one meta-episode from its episode rewards R_0..R_{K−1} (an attempt that never ran
 * has R_k = 0). Writes into `out` when given (it may alias `episodeRewards`). With `offset` and `count`
 * the meta-episode is `episodeRewards[offset .. offset+count−1]`, written to the same range of `out`.
 */
export function metaRewards(
  episodeRewards: ArrayLike<number>,
  mode: MetaRewardMode,
  out: Float64Array = new Float64Array(episodeRewards.length),
  offset = 0,
  count = episodeRewards.length - offset,
): Float64Array {
  if (out.length < episodeRewards.length) {
    throw new InvalidArgumentError(
      `metaRewards: out has ${out.length} entries, need ${episodeRewards.length}.`,
    );
  }
  let previous = 0;
  for (let k = offset; k < offset + count; k++) {
    const r = at(episodeRewards, k);
    out[k] = mode === 'differential' ? r - previous : r;
    previous = r;
  }
  return out;
}

/** The γ_traj a meta-reward mode actually uses: `single` never propagates across attempts. */
export function effectiveTrajGamma(mode: MetaRewardMode, trajGamma: number): number {
  return mode === 'single' ? 0 : trajGamma;
}
