/**
 * The benefit of one evaluation protocol over another on the same tasks: the same policy plays the same
 * meta-episodes twice (say with its notes and with no memory), and every meta-episode contributes its own
 * difference, so the interval is the paired one (far narrower than comparing two independent rates).
 */

import type { SlotRecord } from '@mage-rl/spec';
import { type MeanIntervalV1, meanInterval } from './mean-interval';

export interface PairedPassBenefitV1 {
  /** Meta-episodes found in both evaluations (matched by slot id). */
  readonly pairs: number;
  /** pass@k of `a` minus pass@k of `b`, k = 1..K, with a 95% t-interval over the paired meta-episodes. */
  readonly passAtK: readonly MeanIntervalV1[];
}

/** Whether the slot succeeded in some attempt ≤ k (attempt indices are 0-based). */
const passedBy = (slot: SlotRecord, k: number): number =>
  slot.attempts.some((a) => a.attempt <= k && a.outcome.success) ? 1 : 0;

/** The identity of a meta-episode's task: slot id, env, task seed, opponent and seat. */
const taskKey = (s: SlotRecord): string =>
  JSON.stringify([s.slot, s.task.envId, s.task.seed, s.task.opponentId, s.task.seat]);

/** pass@k of `a` minus that of `b` over the meta-episodes both played on the same task. */
export function pairedPassBenefit(
  a: readonly SlotRecord[],
  b: readonly SlotRecord[],
  attempts: number,
): PairedPassBenefitV1 {
  const other = new Map(b.map((s) => [taskKey(s), s]));
  const pairs = a.flatMap((s) => {
    const t = other.get(taskKey(s));
    return t ? [[s, t] as const] : [];
  });
  return {
    pairs: pairs.length,
    passAtK: Array.from({ length: attempts }, (_, k) =>
      meanInterval(pairs.map(([s, t]) => passedBy(s, k) - passedBy(t, k))),
    ),
  };
}
