import type { PackedRowV1 } from '@mage-rl/core';
import { fitsSegmentRun } from '@mage-rl/learner';
import { RUN_PRESETS } from '@mage-rl/recipes';
import { describe, expect, it } from 'vitest';
import { epochPlan, tokenSteps } from './warm-start-training';

/** A packed sequence of `n` tokens whose last token is scored (it takes n − 1 input positions). */
const seqOf = (n: number, id = 0): PackedRowV1 => ({
  tokens: Array.from({ length: n }, (_, i) => (i === 0 ? id : 1)),
  spans: [{ start: n - 1, length: 1, oldLogprobs: [0], advantage: 1 }],
});

describe('epochPlan', () => {
  const smoke = RUN_PRESETS.smoke.warmStart;

  it('by turns: batchRows turns per step over every epoch, warming up for a tenth of the steps (at most 20)', () => {
    const ws = { ...smoke, batchRows: 4, batchTokens: 0, epochs: 3 };
    const packed = Array.from({ length: 10 }, (_, i) => seqOf(5, i));
    const plan = epochPlan(ws, packed, 10, 1, undefined);
    expect(plan).toMatchObject({ epochs: 3, totalSteps: 9, warmupSteps: 0 });
    // Four steps' worth of turns per update call: 10 sequences of one turn are calls of 16 at most.
    expect(plan.calls.map((e) => e.map((c) => [c.rows.length, c.miniBatchRows]))).toEqual([
      [[10, 4]],
      [[10, 4]],
      [[10, 4]],
    ]);
    expect(epochPlan(ws, packed, 1000, 1, undefined).warmupSteps).toBe(20);
  });

  it('by tokens: one call per step, each filling the run, every sequence once per epoch in its own shuffle', () => {
    const ws = { ...smoke, batchTokens: 32, epochs: 2 };
    const packed = [9, 5, 7, 3, 9, 4, 6, 2, 8].map((n, i) => seqOf(n + 1, i));
    const shape = { rowLength: 16, rows: 2 };
    const plan = epochPlan(ws, packed, packed.length, 7, shape);
    expect(plan.totalSteps).toBe(plan.calls.flat().length);
    for (const epoch of plan.calls) {
      expect(epoch.flatMap((c) => c.rows).sort((a, b) => (a.tokens[0] ?? 0) - (b.tokens[0] ?? 0))).toEqual(
        packed,
      );
      for (const call of epoch) {
        expect(call.miniBatchRows).toBeUndefined();
        expect(fitsSegmentRun(call.rows, shape)).toBe(true);
      }
    }
    // 53 positions in runs of 32: two steps at least, and the window fills them to two or three.
    expect(plan.calls[0]?.length).toBeGreaterThanOrEqual(2);
    expect(plan.calls[0]?.length).toBeLessThanOrEqual(3);
    expect(plan.calls[0]).not.toEqual(plan.calls[1]);
  });

  it('by tokens needs fixed-length segment rows', () => {
    expect(() => epochPlan({ ...smoke, batchTokens: 2048 }, [seqOf(5)], 1, 1, undefined)).toThrow(
      /segment rows/,
    );
  });
});

describe('tokenSteps', () => {
  it('takes the next sequence, then the following ones that still fit, in order', () => {
    const order = [10, 10, 10, 4, 4].map((n, i) => seqOf(n + 1, i));
    const steps = tokenSteps(order, { rowLength: 16, rows: 1 });
    // 10 + 4 fit a row of 16; the second 10 waits for the next step.
    expect(steps.map((s) => s.map((r) => r.tokens[0]))).toEqual([[0, 3], [1, 4], [2]]);
  });

  it('gives a sequence longer than a row a step of its own', () => {
    const steps = tokenSteps([seqOf(21, 0), seqOf(3, 1)], { rowLength: 16, rows: 4 });
    expect(steps.map((s) => s.length)).toEqual([1, 1]);
  });
});
