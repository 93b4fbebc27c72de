/**
 * Batching for the scoring and training graphs: mini-batches of whole units per optimizer step,
 * micro-batches of similar lengths per graph run, and the packing of a micro-batch into the static
 * [rows, bucket length] inputs of one graph.
 */

import { at } from '@mage-rl/core';
import { bucketLength, nextPow2 } from '../sampling/generate-shape';
import { inputLength, type Seq, spanTokens } from './rows';

export interface MicroBatchLimits {
  /** At most this many rows per graph run. */
  readonly rows: number;
  /** Token budget of one graph run: rows × bucket length (a longer sequence runs alone). */
  readonly tokens: number;
  /** The model's positions (the longest bucket). */
  readonly maxPositions: number;
}

/** The bucket length of `n` input positions (16, 32, 48, 64, 96 …). */
export const bucketOf = (n: number, maxPositions: number): number => bucketLength(n, 16, maxPositions);

/** A sequence and the index of its first scored token in a flat per-token array of its batch. */
export interface Placed {
  readonly seq: Seq;
  readonly offset: number;
}

/** Places sequences one after the other: the scored tokens of a batch, sequence by sequence. */
export function placeSeqs(seqs: readonly Seq[]): Placed[] {
  let offset = 0;
  return seqs.map((seq) => {
    const placed = { seq, offset };
    offset += spanTokens(seq);
    return placed;
  });
}

/**
 * Micro-batches of similar lengths: shortest first, a batch grows while its padded size (power-of-two
 * rows × bucket length of its longest sequence) stays within the token budget and the row limit — so
 * short sequences run many to a graph and long ones few, with little padding.
 */
export function microBatches(items: readonly Placed[], limits: MicroBatchLimits): Placed[][] {
  const order = items
    .map((item, i) => ({ item, i, len: inputLength(item.seq) }))
    .sort((a, b) => a.len - b.len || a.i - b.i);
  const out: Placed[][] = [];
  let open: Placed[] = [];
  for (const { item, len } of order) {
    const T = bucketOf(len, limits.maxPositions);
    const rows = open.length + 1;
    if (open.length > 0 && (rows > limits.rows || nextPow2(rows) * T > Math.max(limits.tokens, T))) {
      out.push(open);
      open = [];
    }
    open.push(item);
  }
  if (open.length > 0) out.push(open);
  return out;
}

/**
 * Consecutive runs of `items` in the given order; `full(held, total, closed)` closes the open run after
 * an item, given the spans in the open run, the spans so far and how many runs are closed.
 */
function spanRuns<T>(
  items: readonly T[],
  spansOf: (item: T) => number,
  full: (held: number, total: number, closed: number) => boolean,
): T[][] {
  const out: T[][] = [];
  let open: T[] = [];
  let held = 0;
  let total = 0;
  for (const item of items) {
    open.push(item);
    held += spansOf(item);
    total += spansOf(item);
    if (full(held, total, out.length)) {
      out.push(open);
      open = [];
      held = 0;
    }
  }
  if (open.length > 0) out.push(open);
  return out;
}

/**
 * Mini-batches of whole units in the given order (a plain row is one span): a batch closes when the
 * spans so far reach the next multiple of `rowsPerBatch`, so there are as many steps as for the plain
 * rows (or one fewer) and batch sizes average `rowsPerBatch` spans.
 */
export function miniBatches<U extends { readonly spans: readonly unknown[] }>(
  units: readonly U[],
  rowsPerBatch: number,
): U[][] {
  return spanRuns(
    units,
    (u) => Math.max(1, u.spans.length),
    (_held, total, closed) => total >= (closed + 1) * rowsPerBatch,
  );
}

/**
 * Consecutive runs of packed rows, each closed once it holds at least `spans` spans (the last may hold
 * fewer): the warm start's chunks, one optimizer step each.
 */
export function spanChunks<R extends { readonly spans: readonly unknown[] }>(
  rows: readonly R[],
  spans: number,
): R[][] {
  return spanRuns(
    rows,
    (r) => r.spans.length,
    (held) => held >= spans,
  );
}

/** A packed sequence: where its scored tokens go (`offset`) and their flat positions (b·T + t) in the run. */
export interface PackedRow {
  readonly offset: number;
  readonly positions: Int32Array;
}

/**
 * A micro-batch as graph inputs: B rows (a power of two) of T positions, right-padded. Targets (and
 * the graph's per-token outputs) are per position ([B·T]), or with `scored` per scored token: M
 * entries (a bucket length), `scored` holding their flat positions and `rows[].positions` indices
 * into the M outputs.
 */
export interface Packed {
  readonly B: number;
  readonly T: number;
  readonly ids: BigInt64Array;
  readonly targets: BigInt64Array;
  /** One per sequence, in micro-batch order. */
  readonly rows: readonly PackedRow[];
  /** The flat positions (b·T + t) of the scored tokens, padded with 0 (large-vocabulary graphs). */
  readonly scored?: BigInt64Array;
  /**
   * Rows of several sequences (`packSegments`): each token's position in its own sequence [B·T] and the
   * additive mask [B·T·T] that lets it see only the earlier tokens of its sequence.
   */
  readonly segments?: { readonly positionIds: BigInt64Array; readonly mask: Float32Array };
}

/**
 * Packs a micro-batch: each sequence's inputs up to its last scored token, next tokens as targets.
 * With `scoredOnly`, targets and outputs are per scored token (see `Packed`).
 */
export function pack(items: readonly Placed[], maxPositions: number, scoredOnly = false): Packed {
  const dense = packDense(items, maxPositions);
  return scoredOnly ? toScored(dense) : dense;
}

/** `p` with targets and outputs at its scored tokens only: M = bucket length of their count. */
function toScored(p: Packed): Packed {
  const count = p.rows.reduce((n, r) => n + r.positions.length, 0);
  const M = bucketLength(Math.max(1, count), 16, Math.max(16, p.B * p.T));
  const scored = new BigInt64Array(M);
  const targets = new BigInt64Array(M);
  let k = 0;
  const rows = p.rows.map(({ offset, positions }) => {
    const at0 = k;
    for (const q of positions) {
      scored[k] = BigInt(q);
      targets[k] = p.targets[q] as bigint;
      k++;
    }
    return { offset, positions: Int32Array.from(positions, (_, j) => at0 + j) };
  });
  return { ...p, targets, rows, scored };
}

function packDense(items: readonly Placed[], maxPositions: number): Packed {
  const B = nextPow2(items.length);
  const T = bucketOf(Math.max(1, ...items.map((x) => inputLength(x.seq))), maxPositions);
  const ids = new BigInt64Array(B * T);
  const targets = new BigInt64Array(B * T);
  const rows = items.map(({ seq, offset }, b) => {
    const inputs = seq.tokens.slice(0, Math.min(inputLength(seq), seq.tokens.length - 1));
    ids.set(
      inputs.map((t) => BigInt(t)),
      b * T,
    );
    targets.set(
      seq.tokens.slice(1, inputs.length + 1).map((t) => BigInt(t)),
      b * T,
    );
    const positions = new Int32Array(spanTokens(seq));
    let k = 0;
    for (const span of seq.spans) {
      for (let j = 0; j < span.length; j++) positions[k++] = b * T + span.start - 1 + j;
    }
    return { offset, positions };
  });
  return { B, T, ids, targets, rows };
}

/** `values` at `positions` (a packed sequence's outputs out of a run's flat [B·T] output). */
export const gatherAt = (values: Float32Array, positions: Int32Array): Float32Array =>
  Float32Array.from(positions, (q) => at(values, q));

/**
 * A training run's per-position (or per scored token) values: the flat per-token `values` of its
 * sequences (or `fill` for every scored token when `values` is null) at their positions; zero on padding.
 */
export function atPositions(p: Packed, values: Float32Array | null, fill = 0): Float32Array {
  const out = new Float32Array(p.targets.length);
  for (const { offset, positions } of p.rows) {
    positions.forEach((q, j) => {
      out[q] = values === null ? fill : at(values, offset + j);
    });
  }
  return out;
}
