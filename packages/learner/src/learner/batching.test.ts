import { describe, expect, it } from 'vitest';
import { miniBatches, spanChunks } from './batching';

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
