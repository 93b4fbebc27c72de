/**
 * Step returns across the attempts of a meta-episode (architecture/gigpo.md).
 *
 * Play turn t (1-based) of attempt k with T_k play turns:
 *   G_{k,t} = γ_step^(T_k − t) · ( r̃_k + γ_traj · G_{k+1,1} ),
 * the second term present only if attempt k+1 has play rows. A reflect turn before attempt k gets G_{k,1}.
 */

import { at, InvalidArgumentError } from '@mage-rl/spec';

/**
 * The hot-loop kernel. For attempts `offset .. offset+count−1` of one slot it writes
 * `values[k] = r̃_k + γ_traj · G_{k+1,1}` (the return of the attempt's last play turn) and
 * `heads[k] = G_{k,1} = γ_step^(T_k − 1) · values[k]` (0 for an attempt without play turns).
 * Play turn t of attempt k then has return `γ_step^(T_k − t) · values[k]`.
 */
export function fillAttemptValues(
  meta: ArrayLike<number>,
  turns: ArrayLike<number>,
  stepGamma: number,
  trajGamma: number,
  values: Float64Array,
  heads: Float64Array,
  offset = 0,
  count = meta.length - offset,
): void {
  let nextHead = 0;
  for (let k = offset + count - 1; k >= offset; k--) {
    const t = at(turns, k);
    if (t <= 0) {
      values[k] = 0;
      heads[k] = 0;
      nextHead = 0;
      continue;
    }
    const v = at(meta, k) + trajGamma * nextHead;
    const h = t === 1 ? v : stepGamma ** (t - 1) * v;
    values[k] = v;
    heads[k] = h;
    nextHead = h;
  }
}

export interface SlotReturnsInput {
  /** r̃_k per attempt (see `metaRewards`). */
  readonly metaRewards: ArrayLike<number>;
  /** T_k: play turns per attempt (0 for an attempt that never ran). */
  readonly playTurns: ArrayLike<number>;
  /** γ_step, default 0.95. */
  readonly stepGamma?: number;
  /** γ_traj, default 0.6. Pass 0 for the `single` meta-reward. */
  readonly trajGamma?: number;
}

export interface SlotReturns {
  /** `play[k][t − 1]` = G_{k,t}. */
  readonly play: Float64Array[];
  /** `reflect[k]` = G_{k,1}: the return of a reflect row before attempt k (0 if attempt k has no play rows). */
  readonly reflect: Float64Array;
}

/** Step returns of every play turn of one meta-episode, and of the reflect turns between attempts. */
export function slotStepReturns(input: SlotReturnsInput): SlotReturns {
  const { metaRewards, playTurns } = input;
  const stepGamma = input.stepGamma ?? 0.95;
  const trajGamma = input.trajGamma ?? 0.6;
  const k = metaRewards.length;
  if (playTurns.length !== k) {
    throw new InvalidArgumentError(
      `slotStepReturns: ${k} meta-rewards but ${playTurns.length} play-turn counts.`,
      { context: { metaRewards: k, playTurns: playTurns.length } },
    );
  }
  const values = new Float64Array(k);
  const heads = new Float64Array(k);
  fillAttemptValues(metaRewards, playTurns, stepGamma, trajGamma, values, heads);
  const play: Float64Array[] = [];
  for (const [a, value] of values.entries()) {
    const t = Math.max(0, at(playTurns, a));
    const g = new Float64Array(t);
    for (let i = 0; i < t; i++) g[i] = stepGamma ** (t - 1 - i) * value;
    play.push(g);
  }
  return { play, reflect: heads };
}
