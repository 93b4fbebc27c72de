import { describe, expect, it } from 'vitest';
import { MASK_NEG } from '../model/transformer';
import { miniBatches, type Placed, spanChunks } from './batching';
import { fitsSegmentRun, packSegments, segmentMicroBatches, segmentRows } from './segments';

const row = (spans: number) => ({ spans: Array.from({ length: spans }, (_, i) => i) });

describe('spanChunks', () => {
  it('closes a chunk once it holds enough spans and keeps the rest in the last one', () => {
    const rows = [row(1), row(2), row(3), row(1), row(1)];
    expect(spanChunks(rows, 3).map((c) => c.map((r) => r.spans.length))).toEqual([[1, 2], [3], [1, 1]]);
    expect(spanChunks([], 3)).toEqual([]);
  });
});

describe('miniBatches', () => {
  it('closes a batch when the spans so far reach the next multiple (a plain row counts as one)', () => {
    const units = [row(3), row(3), row(3), row(0), row(3)];
    expect(miniBatches(units, 4).map((b) => b.map((u) => u.spans.length))).toEqual([[3, 3], [3], [0, 3]]);
  });
});

/** A sequence of `n` inputs (n + 1 tokens, ids from `first`) whose last `scored` tokens are one span. */
const seqOf = (n: number, first = 10, scored = 2, offset = 0): Placed => ({
  seq: {
    tokens: Array.from({ length: n + 1 }, (_, i) => first + i),
    spans: [{ start: n + 1 - scored, length: scored }],
  },
  offset,
});

describe('segmentRows', () => {
  it('fills rows first-fit decreasing, never past the row length, each sequence once', () => {
    // Distinct first tokens: no shared prefixes.
    const items = [5, 3, 8, 2, 6, 1].map((n, i) => seqOf(n, 100 * (i + 1)));
    const rows = segmentRows(items, 10);
    const lengths = rows.map((r) => r.map((x) => x.seq.tokens.length - 1));
    expect(lengths).toEqual([[8, 2], [6, 3, 1], [5]]);
    expect(lengths.flat().sort((a, b) => a - b)).toEqual([1, 2, 3, 5, 6, 8]);
  });

  it('gives a sequence longer than the row its own row', () => {
    const rows = segmentRows([seqOf(4), seqOf(12), seqOf(3)], 8);
    expect(rows.map((r) => r.map((x) => x.seq.tokens.length - 1))).toEqual([[12], [4, 3]]);
  });

  it('runs at most the rows the token budget holds (and at least one)', () => {
    const items = [7, 7, 7, 7, 7].map((n) => seqOf(n));
    const limits = { rows: 8, tokens: 16, maxPositions: 64 };
    expect(segmentMicroBatches(items, limits, 8).map((run) => run.length)).toEqual([2, 2, 1]);
    expect(segmentMicroBatches(items, { ...limits, tokens: 4 }, 8).map((run) => run.length)).toEqual([
      1, 1, 1, 1, 1,
    ]);
  });
});

describe('packSegments', () => {
  it('restarts positions per sequence, masks other sequences and places the scored tokens', () => {
    const a = seqOf(3, 10, 2, 0);
    const b = seqOf(2, 20, 1, 2);
    const c = seqOf(11, 30, 1, 3);
    const p = packSegments([[a, b], [c]], 64);
    // The fullest row holds 11 inputs: bucket 16.
    expect([p.B, p.T]).toEqual([2, 16]);
    expect(Array.from(p.ids, Number).slice(0, 6)).toEqual([10, 11, 12, 20, 21, 0]);
    expect(Array.from(p.targets, Number).slice(0, 6)).toEqual([11, 12, 13, 21, 22, 0]);
    expect(Array.from(p.segments?.positionIds ?? [], Number).slice(0, 7)).toEqual([0, 1, 2, 0, 1, 0, 1]);
    // Span start 2 (of a's tokens 0..3) → input positions 1 and 2; b's span start 2 → position 1 + 3.
    expect(p.rows.map((r) => [r.offset, ...r.positions])).toEqual([
      [0, 1, 2],
      [2, 4],
      [3, 16 + 10],
    ]);
    const visible = (i: number) =>
      Array.from({ length: 7 }, (_, j) => (p.segments?.mask[i * 16 + j] === 0 ? 1 : 0)).join('');
    expect([0, 1, 2, 3, 4, 5, 6].map(visible)).toEqual([
      '1000000',
      '1100000',
      '1110000',
      '0001000',
      '0001100',
      '0000010',
      '0000011',
    ]);
    expect(p.segments?.mask[3 * 16 + 0]).toBe(MASK_NEG);
    expect(p.segments?.mask.length).toBe(2 * 16 * 16);
  });
});

describe('shared prefixes', () => {
  /** A sequence of these tokens whose last `scored` tokens are one span. */
  const seqOfTokens = (tokens: number[], scored: number, offset = 0): Placed => ({
    seq: { tokens, spans: [{ start: tokens.length - scored, length: scored }] },
    offset,
  });

  it('places a shared prefix once; the later sequence attends to it at its own positions', () => {
    const a = seqOfTokens([1, 2, 3, 4, 5, 6], 2, 0);
    const b = seqOfTokens([1, 2, 3, 9, 8], 1, 2);
    const p = packSegments([[a, b]], 64);
    // a's inputs are 5 tokens, b's 4 of which 3 are a's prefix: 6 positions, bucket 16.
    expect([p.B, p.T]).toEqual([1, 16]);
    expect(Array.from(p.ids, Number).slice(0, 7)).toEqual([1, 2, 3, 4, 5, 9, 0]);
    expect(Array.from(p.targets, Number).slice(0, 6)).toEqual([2, 3, 4, 5, 6, 8]);
    expect(Array.from(p.segments?.positionIds ?? [], Number).slice(0, 7)).toEqual([0, 1, 2, 3, 4, 3, 0]);
    expect(p.rows.map((r) => [r.offset, ...r.positions])).toEqual([
      [0, 3, 4],
      [2, 5],
    ]);
    const visible = (i: number) =>
      Array.from({ length: 7 }, (_, j) => (p.segments?.mask[i * 16 + j] === 0 ? 1 : 0)).join('');
    expect([3, 4, 5, 6].map(visible)).toEqual(['1111000', '1111100', '1110010', '0000001']);
  });

  it("never shares a scored token's input, and packs sharers into fewer rows", () => {
    // b's span starts at token 2: its inputs from position 1 on are its own, so it shares one token.
    const a = seqOfTokens([1, 2, 3, 4, 5, 6], 1, 0);
    const b = seqOfTokens([1, 2, 3, 4], 2, 1);
    const p = packSegments([[a, b]], 64);
    expect(Array.from(p.ids, Number).slice(0, 8)).toEqual([1, 2, 3, 4, 5, 2, 3, 0]);
    expect(p.rows.map((r) => [...r.positions])).toEqual([[4], [5, 6]]);
    // Rows of 8: 7 + 7 inputs fit one row when 6 of b's are a's.
    const long = seqOfTokens([1, 2, 3, 4, 5, 6, 7, 8], 1);
    const sharer = seqOfTokens([1, 2, 3, 4, 5, 6, 9, 9], 1);
    expect(segmentRows([long, sharer], 8).map((r) => r.length)).toEqual([2]);
    expect(segmentRows([long, seqOfTokens([7, 2, 3, 4, 5, 6, 9, 9], 1)], 8).map((r) => r.length)).toEqual([
      1, 1,
    ]);
  });
});

describe('fitsSegmentRun', () => {
  it("is whether first-fit decreasing fills at most the run's rows", () => {
    const shape = { rowLength: 10, rows: 2 };
    // 8 + 2 and 6 + 3 + 1: two rows.
    expect(
      fitsSegmentRun(
        [8, 3, 6, 2, 1].map((n) => seqOf(n).seq),
        shape,
      ),
    ).toBe(true);
    // 8, 6 and 5 need three rows.
    expect(
      fitsSegmentRun(
        [8, 6, 5].map((n) => seqOf(n).seq),
        shape,
      ),
    ).toBe(false);
  });

  it('takes a sequence longer than a row alone only', () => {
    const shape = { rowLength: 10, rows: 4 };
    expect(fitsSegmentRun([seqOf(12).seq], shape)).toBe(true);
    expect(fitsSegmentRun([seqOf(12).seq, seqOf(1).seq], shape)).toBe(false);
  });
});
