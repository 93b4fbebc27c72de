import type { RowRecord } from '@mage-rl/spec';
import { describe, expect, it } from 'vitest';
import { refusedRetryRows } from './refused-retry';

const play = (turn: number, response: number[], extra: Partial<RowRecord> = {}): RowRecord => ({
  group: 'g',
  slot: 's',
  opponentId: null,
  attempt: 0,
  turn,
  phase: 'play',
  anchor: 'board-a',
  promptText: '',
  responseText: '',
  promptTokens: [100 + turn],
  responseTokens: response,
  logprobs: response.map(() => -1),
  reward: 0,
  valid: true,
  ...extra,
});
const refused = (turn: number, response: number[], extra: Partial<RowRecord> = {}) =>
  play(turn, response, { valid: false, invalid: 'rule', ...extra });

describe('refusedRetryRows', () => {
  it("trains the refused response at the retry's prompt with weight × the refused turn's advantage", () => {
    const rows = [refused(0, [7]), play(1, [8]), play(2, [9], { anchor: 'board-b' })];
    expect(refusedRetryRows(rows, [-2, 0.5, 1], 1.5)).toEqual([
      { retry: 1, promptTokens: [101], responseTokens: [7], advantage: -3 },
    ]);
  });

  it('leaves out: weight 0, format errors, non-negative advantages, repeats, a changed anchor, the last turn', () => {
    expect(refusedRetryRows([refused(0, [7]), play(1, [8])], [-2, 0], 0)).toEqual([]);
    expect(refusedRetryRows([refused(0, [7], { invalid: 'format' }), play(1, [8])], [-2, 0], 1)).toEqual([]);
    expect(refusedRetryRows([refused(0, [7]), play(1, [8])], [0, 0], 1)).toEqual([]);
    // A retry that repeats the refused response is already a row of its own.
    expect(refusedRetryRows([refused(0, [7]), refused(1, [7])], [-2, -2], 1)).toEqual([]);
    expect(refusedRetryRows([refused(0, [7]), play(1, [8], { anchor: 'board-b' })], [-2, 0], 1)).toEqual([]);
    expect(refusedRetryRows([refused(0, [7])], [-2], 1)).toEqual([]);
  });

  it('finds the retry by slot, attempt and turn, whatever the row order', () => {
    const rows = [
      play(1, [8], { slot: 't' }),
      refused(0, [7], { attempt: 1 }),
      play(1, [8], { attempt: 0 }),
      play(1, [5], { attempt: 1 }),
      { ...play(-1, [3]), phase: 'reflect' as const, turn: -1 },
    ];
    expect(refusedRetryRows(rows, [0, -1, 0, 0, 0], 1)).toEqual([
      { retry: 3, promptTokens: [101], responseTokens: [7], advantage: -1 },
    ]);
  });
});
