/**
 * The step part of the GiGPO advantage: rows of one group that saw the same anchor state form a step
 * group, and each row's step return is compared with its step group's.
 */

import { at } from '@mage-rl/spec';

import { intern } from '../columns/intern';
import { bucketBaseline, centre } from './buckets';
import type { RowIndex } from './row-index';
import type { AdvantageRowInput, ResolvedAdvantageOptions } from './types';

/** Writes the step advantage of every row to `out`; a row alone in its step group gets 0. */
export function stepAdvantages(
  returns: Float64Array,
  rows: readonly AdvantageRowInput[],
  index: RowIndex,
  o: ResolvedAdvantageOptions,
  out: Float64Array,
): void {
  const rowStep = new Int32Array(rows.length);
  const nSteps = assignStepGroups(rows, index, o.anchorScope === 'local', rowStep);
  const baseline = bucketBaseline(returns, rowStep, nSteps, o.normalization === 'mean-std');
  centre(returns, rowStep, baseline, out);
  for (let i = 0; i < rowStep.length; i++) {
    if (at(baseline.counts, at(rowStep, i)) === 1) out[i] = 0;
  }
}

/**
 * Step-group index of every row: rows of one group with equal anchors (and, under `local` scope, equal
 * attempts). Returns the number of step groups.
 */
function assignStepGroups(
  rows: readonly AdvantageRowInput[],
  index: RowIndex,
  local: boolean,
  rowStep: Int32Array,
): number {
  const { rowGroup, nGroups } = index;
  const anchors = new Map<string, number>();
  const attemptStride = local ? index.maxAttempt + 1 : 1;
  // Numeric keys (anchor, group, attempt) while they stay exact; string keys past 2^53.
  if (rows.length * nGroups * attemptStride < Number.MAX_SAFE_INTEGER) {
    const steps = new Map<number, number>();
    for (let i = 0; i < rows.length; i++) {
      const row = at(rows, i);
      let anchor = anchors.get(row.anchor);
      if (anchor === undefined) {
        anchor = anchors.size;
        anchors.set(row.anchor, anchor);
      }
      let key = anchor * nGroups + at(rowGroup, i);
      if (local) key = key * attemptStride + row.attempt;
      rowStep[i] = intern(steps, key);
    }
    return steps.size;
  }
  const steps = new Map<string, number>();
  for (let i = 0; i < rows.length; i++) {
    const row = at(rows, i);
    rowStep[i] = intern(steps, `${at(rowGroup, i)}\u0000${local ? row.attempt : 0}\u0000${row.anchor}`);
  }
  return steps.size;
}
