/**
 * Segment rows: several sequences in one row of a scoring or training run, each attending only to its
 * own tokens (an additive block mask and per-sequence positions). A sequence may also share a prefix
 * with a sequence placed before it in the same row: its first tokens are not placed again, its later
 * tokens attend to the earlier sequence's copies of them (architecture/learner.md, "Segment rows").
 */

import { at } from '@mage-rl/core';
import { MASK_NEG } from '../model/transformer';
import { bucketOf, type MicroBatchLimits, type Packed, type PackedRow, type Placed } from './batching';
import { inputLength, type Seq, spanTokens } from './rows';

/** Input positions a sequence takes in a run: its inputs up to its last scored token. */
export const segmentInputs = (seq: Seq): number => Math.min(inputLength(seq), seq.tokens.length - 1);

/**
 * First-fit decreasing of sequences of `lengths` positions into rows of `rowLength`: the longest first,
 * into the first row with room (ties in the given order); one longer than `rowLength` gets a row of its
 * own. Returns the indices of each row's sequences, longest first.
 */
export function firstFitDecreasing(lengths: readonly number[], rowLength: number): number[][] {
  return packRows(lengths, rowLength, () => 0);
}

/**
 * First-fit decreasing where a sequence placed in a row costs its length less `shared(i, j)`, the
 * prefix it shares with the row's sequence j placed before it (the largest such prefix counts).
 */
function packRows(
  lengths: readonly number[],
  rowLength: number,
  shared: (i: number, j: number) => number,
): number[][] {
  const order = lengths.map((len, i) => ({ len, i })).sort((a, b) => b.len - a.len || a.i - b.i);
  const rows: { items: number[]; used: number }[] = [];
  for (const { len, i } of order) {
    const cost = (r: { items: number[] }) => len - Math.max(0, ...r.items.map((j) => shared(i, j)));
    const row = rows.find((r) => r.used + cost(r) <= rowLength);
    if (row === undefined) rows.push({ items: [i], used: len });
    else {
      row.used += cost(row);
      row.items.push(i);
    }
  }
  return rows.map((r) => r.items);
}

/**
 * The prefix `seq` may take from `owner` when placed after it: their common tokens, at most the owner's
 * inputs, and short of `seq`'s first scored input (its log-probs must come from its own positions).
 */
export function sharedPrefix(seq: Seq, owner: Seq): number {
  const first = seq.spans[0];
  const limit = Math.min(segmentInputs(owner), first === undefined ? 0 : first.start - 1);
  let n = 0;
  while (n < limit && seq.tokens[n] === owner.tokens[n]) n++;
  return n;
}

/**
 * Rows of several sequences, each row at most `rowLength` input positions (first-fit decreasing; a
 * sequence costs its inputs less the prefix it shares with one placed before it in the row).
 */
export function segmentRows(items: readonly Placed[], rowLength: number): Placed[][] {
  const rows = packRows(
    items.map((x) => segmentInputs(x.seq)),
    rowLength,
    (i, j) => sharedPrefix(at(items, i).seq, at(items, j).seq),
  );
  return rows.map((row) => row.map((i) => at(items, i)));
}

/** A full segment run: `rows` rows of `rowLength` positions. */
export interface SegmentRunShape {
  readonly rows: number;
  readonly rowLength: number;
}

/**
 * Whether these sequences fill at most one run of `shape` by first-fit decreasing of their whole
 * lengths (no shared prefixes: the learner packs them into at most as many rows).
 */
export function fitsSegmentRun(seqs: readonly Seq[], shape: SegmentRunShape): boolean {
  const lengths = seqs.map(segmentInputs);
  if (lengths.some((n) => n > shape.rowLength)) return seqs.length <= 1;
  return firstFitDecreasing(lengths, shape.rowLength).length <= shape.rows;
}

/** Rows of `rowLength` one segment run holds: at most `limits.rows` and `limits.tokens` positions, at least one. */
export const segmentRunRows = (limits: MicroBatchLimits, rowLength: number): number =>
  Math.max(1, Math.min(limits.rows, Math.floor(limits.tokens / rowLength)));

/**
 * Micro-batches of segment rows (`segmentRows` at `rowLength`): consecutive runs of at most
 * `limits.rows` rows and `limits.tokens` positions (at least one row). Row counts are not rounded to
 * a power of two, so a run's shape is [rows, rowLength] with rows from 1 to that limit.
 */
export function segmentMicroBatches(
  items: readonly Placed[],
  limits: MicroBatchLimits,
  rowLength: number,
): Placed[][][] {
  const perRun = segmentRunRows(limits, rowLength);
  const rows = segmentRows(items, rowLength);
  const out: Placed[][][] = [];
  for (let i = 0; i < rows.length; i += perRun) out.push(rows.slice(i, i + perRun));
  return out;
}

/**
 * Where each sequence of a row puts its input tokens: `at[t]`, the row position of token t (the first
 * `shared` of them are those of an earlier sequence), and the row's length.
 */
function placeRow(row: readonly Placed[]): { places: { at: Int32Array; shared: number }[]; used: number } {
  const places: { at: Int32Array; shared: number }[] = [];
  let used = 0;
  row.forEach(({ seq }, k) => {
    let shared = 0;
    let owner = -1;
    for (let j = 0; j < k; j++) {
      const n = sharedPrefix(seq, at(row, j).seq);
      if (n > shared) [shared, owner] = [n, j];
    }
    const n = segmentInputs(seq);
    const positions = new Int32Array(n);
    if (owner >= 0) positions.set(at(places, owner).at.subarray(0, shared));
    for (let t = shared; t < n; t++) positions[t] = used + t - shared;
    used += n - shared;
    places.push({ at: positions, shared });
  });
  return { places, used };
}

/**
 * Packs rows of several sequences into a [rows, T] run, T the bucket length of its fullest row (a run
 * of full rows has the rows' length, a lone half-empty row a shorter one): every token keeps its
 * position in its own sequence (`segments.positionIds`) and attends causally to its own sequence's
 * tokens only (`segments.mask`), a shared prefix included; the padding after a row's last sequence is
 * one more such segment. Targets and outputs are per position, as in `pack`.
 */
export function packSegments(rows: readonly (readonly Placed[])[], maxPositions: number): Packed {
  const B = rows.length;
  const placedRows = rows.map(placeRow);
  const T = Math.max(...placedRows.map((r) => bucketOf(Math.max(1, r.used), Math.max(r.used, maxPositions))));
  const ids = new BigInt64Array(B * T);
  const targets = new BigInt64Array(B * T);
  const positionIds = new BigInt64Array(B * T);
  const mask = new Float32Array(B * T * T).fill(MASK_NEG);
  const packed: PackedRow[] = [];
  rows.forEach((row, b) => {
    const { places, used } = at(placedRows, b);
    row.forEach(({ seq, offset }, k) => {
      const { at: where, shared } = at(places, k);
      for (let t = shared; t < where.length; t++) {
        const q = b * T + at(where, t);
        ids[q] = BigInt(at(seq.tokens, t));
        targets[q] = BigInt(at(seq.tokens, t + 1));
        positionIds[q] = BigInt(t);
        for (let s = 0; s <= t; s++) mask[q * T + at(where, s)] = 0;
      }
      const positions = new Int32Array(spanTokens(seq));
      let i = 0;
      for (const span of seq.spans) {
        for (let j = 0; j < span.length; j++) positions[i++] = b * T + at(where, span.start - 1 + j);
      }
      packed.push({ offset, positions });
    });
    // Padding: one more sequence, so that no query sees nothing.
    for (let i = used; i < T; i++) {
      positionIds[b * T + i] = BigInt(i - used);
      mask.fill(0, (b * T + i) * T + used, (b * T + i) * T + i + 1);
    }
  });
  return { B, T, ids, targets, rows: packed, segments: { positionIds, mask } };
}
