import type { PackedRowV1 } from '@mage-rl/core';
import { RUN_PRESETS } from '@mage-rl/recipes';
import { describe, expect, it } from 'vitest';
import { chunksOf, epochPlan } from './warm-start-training';

const row = (spans: number): PackedRowV1 => ({
  tokens: [1, 2],
  spans: Array.from({ length: spans }, () => ({ start: 1, length: 1, oldLogprobs: [0], advantage: 1 })),
});

describe('chunksOf', () => {
  it('closes a chunk once it holds enough spans and keeps the rest in the last one', () => {
    const rows = [row(1), row(2), row(3), row(1), row(1)];
    expect(chunksOf(rows, 3).map((c) => c.map((r) => r.spans.length))).toEqual([[1, 2], [3], [1, 1]]);
    expect(chunksOf([], 3)).toEqual([]);
  });
});

describe('epochPlan', () => {
  it('steps batchRows rows at a time over every epoch, warming up for a tenth of the steps (at most 20)', () => {
    const ws = { ...RUN_PRESETS.smoke.warmStart, batchRows: 4, epochs: 3 };
    expect(epochPlan(ws, 10)).toEqual({ epochs: 3, batch: 4, chunk: 16, totalSteps: 9, warmupSteps: 0 });
    expect(epochPlan(ws, 1000).warmupSteps).toBe(20);
  });
});
