/**
 * The episode part of the advantage: every row's score against the baseline of its group, over rows,
 * slots, attempts of the same index, or (GRPO) attempts.
 */

import { at } from '@mage-rl/spec';

import { intern } from '../columns/intern';
import { bucketBaseline, bucketTotals, centre } from './buckets';
import type { RowIndex } from './row-index';
import type { AdvantageRowInput, ResolvedAdvantageOptions } from './types';

/** Writes the episode advantage of every row to `out`. */
export function episodeAdvantages(
  scores: Float64Array,
  rows: readonly AdvantageRowInput[],
  index: RowIndex,
  o: ResolvedAdvantageOptions,
  out: Float64Array,
): void {
  const meanStd = o.normalization === 'mean-std';
  if (o.estimator === 'grpo') {
    const attemptGroup = new Int32Array(index.nAttempts);
    for (const { group, offset, attempts } of index.slots)
      attemptGroup.fill(group, offset, offset + attempts);
    unitBaseline(scores, index.rowAttempt, attemptGroup, index.rowGroup, index.nGroups, meanStd, out);
  } else if (o.episodeBaseline === 'attempt') {
    attemptBaseline(scores, rows, index, meanStd, out);
  } else if (o.episodeBaseline === 'trajectory') {
    const slotGroup = Int32Array.from(index.slots, (slot) => slot.group);
    unitBaseline(scores, index.rowSlot, slotGroup, index.rowGroup, index.nGroups, meanStd, out);
  } else {
    centre(scores, index.rowGroup, bucketBaseline(scores, index.rowGroup, index.nGroups, meanStd), out);
  }
}

/**
 * Unit-weighted baseline: every unit (a slot, or an attempt under GRPO) contributes the mean score of
 * its rows once; the group mean and std are taken over units. A group with one unit uses mean 0, std 1.
 */
function unitBaseline(
  scores: Float64Array,
  rowUnit: Int32Array,
  unitGroup: Int32Array,
  rowGroup: Int32Array,
  nGroups: number,
  meanStd: boolean,
  out: Float64Array,
): void {
  const { sums: unitMeans, counts } = bucketTotals(scores, rowUnit, unitGroup.length);
  // Units without rows take no part.
  const unitBucket = new Int32Array(unitGroup.length);
  for (let u = 0; u < counts.length; u++) {
    const c = at(counts, u);
    if (c === 0) {
      unitBucket[u] = -1;
      continue;
    }
    unitMeans[u] = at(unitMeans, u) / c;
    unitBucket[u] = at(unitGroup, u);
  }
  centre(scores, rowGroup, bucketBaseline(unitMeans, unitBucket, nGroups, meanStd), out);
}

/**
 * Per-attempt baseline: a play row is compared with the attempts of the same index in its group (each
 * attempt one unit, its mean play-row score), a reflect row with the reflect rows written before the same
 * attempt index in its group (row-weighted). Attempt k's rows are thus never judged against attempt j's
 * meta-rewards, whose scale differs under the differential meta-reward.
 */
function attemptBaseline(
  scores: Float64Array,
  rows: readonly AdvantageRowInput[],
  index: RowIndex,
  meanStd: boolean,
  out: Float64Array,
): void {
  const buckets = new Map<string, number>();
  const rowBucket = new Int32Array(rows.length);
  const rowUnit = new Int32Array(rows.length);
  // Units: the attempt ids, then one unit per reflect row.
  const unitBucket = new Int32Array(index.nAttempts + rows.length).fill(-1);
  let nUnits = index.nAttempts;
  for (let i = 0; i < rows.length; i++) {
    const row = at(rows, i);
    const a = at(index.playAttempt, i);
    const key = `${at(index.rowGroup, i)}\u0000${row.attempt}\u0000${a >= 0 ? 'p' : 'r'}`;
    const b = intern(buckets, key);
    rowBucket[i] = b;
    if (a >= 0) {
      rowUnit[i] = a;
      unitBucket[a] = b;
    } else {
      rowUnit[i] = nUnits;
      unitBucket[nUnits++] = b;
    }
  }
  unitBaseline(scores, rowUnit, unitBucket.subarray(0, nUnits), rowBucket, buckets.size, meanStd, out);
}
