/**
 * From core's `RowRecord` (what the runner records) to `AdvantageRowInput` (what `computeAdvantages` reads).
 */

import type { RowRecord } from '@mage-rl/spec';
import type { AdvantageRowInput } from '../advantages/types';

export interface RowsToAdvantageInputsOptions {
  /**
   * How rows are grouped for normalisation:
   * - `recorded` (default): group ids and anchors exactly as recorded. With a `per-opponent` population
   *   this is MAGE's per-opponent normalisation; with a `mixed` population (core `createPopulation(…,
   *   { grouping: 'mixed' })`) the episode baseline mixes opponents while step groups stay per opponent,
   *   because every anchor carries the opponent id.
   * - `per-opponent`: the opponent id is appended to the group id, so normalisation is per opponent even
   *   if the rollout mixed opponents inside a group.
   * - `mixed`: the full "non-stationary grouping" ablation: group ids as recorded, and the opponent id is
   *   removed from anchors (`<state>|<opponent>` → `<state>`, `reflection|<opponent>` → `reflection`), so
   *   step groups mix opponents too.
   */
  readonly grouping?: 'recorded' | 'per-opponent' | 'mixed';
}

/** The suffix core's `playAnchor` / `reflectAnchor` append to every anchor. */
function opponentSuffix(opponentId: string | null): string {
  return `|${opponentId ?? 'none'}`;
}

/** One `AdvantageRowInput` per row, in order. `responseTokens` becomes the response token count. */
export function rowsToAdvantageInputs(
  rows: readonly RowRecord[],
  options: RowsToAdvantageInputsOptions = {},
): AdvantageRowInput[] {
  const grouping = options.grouping ?? 'recorded';
  const out = new Array<AdvantageRowInput>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i] as RowRecord;
    let group = r.group;
    let anchor = r.anchor;
    if (grouping === 'per-opponent') {
      group = `${r.group}|${r.opponentId ?? 'none'}`;
    } else if (grouping === 'mixed') {
      const suffix = opponentSuffix(r.opponentId);
      if (anchor.endsWith(suffix)) anchor = anchor.slice(0, anchor.length - suffix.length);
    }
    out[i] = {
      group,
      slot: r.slot,
      attempt: r.attempt,
      phase: r.phase,
      anchor,
      reward: r.reward,
      valid: r.valid,
      responseTokens: r.responseTokens.length,
    };
  }
  return out;
}
