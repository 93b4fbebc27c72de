/**
 * Episode returns: per-attempt rewards R_k and play-turn counts T_k, meta-rewards r̃_k and the step return
 * of every row (architecture/gigpo.md).
 */

import { at } from '@mage-rl/spec';

import { metaRewards } from '../meta-reward/meta-reward';
import { fillAttemptValues } from '../returns/step-returns';
import { bucketTotals } from './buckets';
import type { RowIndex } from './row-index';
import type { AdvantageRowInput, ResolvedAdvantageOptions } from './types';

/** Per attempt id. */
export interface AttemptValues {
  /** Meta-reward r̃_k. */
  readonly meta: Float64Array;
  /** Play turns T_k. */
  readonly playTurns: Int32Array;
  /** r̃_k + γ_traj · G_{k+1,1}: the return of the attempt's last play turn. */
  readonly values: Float64Array;
  /** G_{k,1}: the return of the attempt's first play turn (0 without play turns). */
  readonly heads: Float64Array;
}

/** Sums the play rewards of every attempt and turns them into meta-rewards and returns, slot by slot. */
export function attemptValues(
  rows: readonly AdvantageRowInput[],
  index: RowIndex,
  o: ResolvedAdvantageOptions,
): AttemptValues {
  const rewards = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) rewards[i] = at(rows, i).reward;
  const { sums, counts: playTurns } = bucketTotals(rewards, index.playAttempt, index.nAttempts);
  const meta = new Float64Array(index.nAttempts);
  const values = new Float64Array(index.nAttempts);
  const heads = new Float64Array(index.nAttempts);
  for (const { offset, attempts } of index.slots) {
    metaRewards(sums, o.metaReward, meta, offset, attempts);
    fillAttemptValues(meta, playTurns, o.stepGamma, o.trajGamma, values, heads, offset, attempts);
  }
  return { meta, playTurns, values, heads };
}

/**
 * Step return and meta-reward score of every row: play turn t of attempt k gets
 * γ_step^(T_k − t) · values[k] and r̃_k; a reflect row before attempt k gets G_{k,1} and 0.
 */
export function rowReturns(
  index: RowIndex,
  attempts: AttemptValues,
  stepGamma: number,
  returns: Float64Array,
  scores: Float64Array,
): void {
  const turnsLeft = attempts.playTurns.slice();
  for (let i = 0; i < returns.length; i++) {
    const a = at(index.playAttempt, i);
    if (a < 0) {
      returns[i] = at(attempts.heads, at(index.rowAttempt, i));
      scores[i] = 0;
      continue;
    }
    const left = at(turnsLeft, a) - 1;
    turnsLeft[a] = left;
    const value = at(attempts.values, a);
    returns[i] = left === 0 ? value : stepGamma ** left * value;
    scores[i] = at(attempts.meta, a);
  }
}
