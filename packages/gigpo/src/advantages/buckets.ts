/**
 * Per-bucket statistics over typed columns: a row (or unit) `i` belongs to bucket `bucketOf[i]`, a negative
 * bucket means "left out". Sums are taken in index order, so results do not depend on anything but the
 * order of the rows.
 */

import { at } from '@mage-rl/spec';

/** Added to the unbiased std under `mean-std`. */
export const STD_EPSILON = 1e-6;

export interface BucketTotals {
  readonly sums: Float64Array;
  readonly counts: Int32Array;
}

/** Sum and count of `values` per bucket. */
export function bucketTotals(
  values: ArrayLike<number>,
  bucketOf: Int32Array,
  nBuckets: number,
): BucketTotals {
  const sums = new Float64Array(nBuckets);
  const counts = new Int32Array(nBuckets);
  for (let i = 0; i < bucketOf.length; i++) {
    const b = at(bucketOf, i);
    if (b < 0) continue;
    sums[b] = at(sums, b) + at(values, i);
    counts[b] = at(counts, b) + 1;
  }
  return { sums, counts };
}

/** What the members of each bucket are compared with. */
export interface Baseline {
  /** Mean of each bucket with more than one member, 0 for a bucket of one. */
  readonly means: Float64Array;
  readonly counts: Int32Array;
  /** Under `mean-std`: unbiased std + ε of each bucket, 1 for a bucket of one; otherwise `null`. */
  readonly divisors: Float64Array | null;
}

/** The mean (and under `mean-std` the std) of `values` per bucket. */
export function bucketBaseline(
  values: Float64Array,
  bucketOf: Int32Array,
  nBuckets: number,
  meanStd: boolean,
): Baseline {
  const { sums: means, counts } = bucketTotals(values, bucketOf, nBuckets);
  for (let b = 0; b < nBuckets; b++) {
    const c = at(counts, b);
    means[b] = c > 1 ? at(means, b) / c : 0;
  }
  return { means, counts, divisors: meanStd ? divisors(values, bucketOf, means, counts) : null };
}

function divisors(
  values: Float64Array,
  bucketOf: Int32Array,
  means: Float64Array,
  counts: Int32Array,
): Float64Array {
  const sq = new Float64Array(counts.length);
  for (let i = 0; i < bucketOf.length; i++) {
    const b = at(bucketOf, i);
    if (b < 0) continue;
    const d = at(values, i) - at(means, b);
    sq[b] = at(sq, b) + d * d;
  }
  for (let b = 0; b < sq.length; b++) {
    const c = at(counts, b);
    sq[b] = c > 1 ? Math.sqrt(at(sq, b) / (c - 1)) + STD_EPSILON : 1;
  }
  return sq;
}

/** `(values[i] − mean) / divisor` of row i's bucket, written to `out`. */
export function centre(
  values: Float64Array,
  bucketOf: Int32Array,
  baseline: Baseline,
  out: Float64Array,
): void {
  const { means, divisors } = baseline;
  for (let i = 0; i < bucketOf.length; i++) {
    const b = at(bucketOf, i);
    const a = at(values, i) - at(means, b);
    out[i] = divisors === null ? a : a / at(divisors, b);
  }
}
