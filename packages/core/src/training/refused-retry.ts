/**
 * Refused-action rows: the retry after a refused action, shown what not to do. When the env refuses a
 * play turn by its rules (`invalid: 'rule'`, e.g. an occupied cell) nothing changes, and the next play
 * turn of the same attempt retries from the same state (same anchor) with the refusal in its prompt. A
 * sharp policy tends to answer the refusal with the same action, and the update only learns that when
 * such a repeat is sampled. A refused-action row trains the refused action once more at the retry's
 * prompt, with `weight` × the refused turn's advantage (negative: the refusal's penalty is in it): an
 * unlikelihood term on exactly the repeat (architecture/training.md, "Refused-action rows").
 */

import type { RowRecord } from '@mage-rl/spec';

export interface RefusedRetryRow {
  /** Index (in the batch's rows) of the retry whose prompt the row takes. */
  readonly retry: number;
  readonly promptTokens: readonly number[];
  /** The refused turn's response. */
  readonly responseTokens: readonly number[];
  readonly advantage: number;
}

const turnKey = (r: RowRecord, turn: number) => `${r.slot}\u0000${r.attempt}\u0000${turn}`;

function sameTokens(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

/**
 * The refused-action rows of a batch: one per rule-refused play turn with a negative advantage whose
 * attempt goes on from the same anchor with a different response (a retry that repeats the refused
 * response is already trained as its own row). None when `weight` is 0.
 */
export function refusedRetryRows(
  rows: readonly RowRecord[],
  advantages: ArrayLike<number>,
  weight: number,
): RefusedRetryRow[] {
  if (weight === 0) return [];
  const playRow = new Map<string, number>();
  rows.forEach((r, i) => {
    if (r.phase === 'play') playRow.set(turnKey(r, r.turn), i);
  });
  const out: RefusedRetryRow[] = [];
  rows.forEach((refused, i) => {
    if (refused.phase !== 'play' || refused.invalid !== 'rule' || refused.responseTokens.length === 0) return;
    const advantage = weight * (advantages[i] ?? 0);
    if (!(advantage < 0)) return;
    const retry = playRow.get(turnKey(refused, refused.turn + 1));
    if (retry === undefined) return;
    const next = rows[retry]!;
    if (next.anchor !== refused.anchor || sameTokens(next.responseTokens, refused.responseTokens)) return;
    out.push({ retry, promptTokens: next.promptTokens, responseTokens: refused.responseTokens, advantage });
  });
  return out;
}
