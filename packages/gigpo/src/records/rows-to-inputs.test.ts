import type { RowRecord } from '@mage-rl/core';
import { rowRecord } from '@mage-rl/core/testing';
import { describe, expect, it } from 'vitest';
import { computeAdvantages } from '../advantages/compute-advantages';
import { rowsToAdvantageInputs } from './rows-to-inputs';

const record = (over: Partial<RowRecord>): RowRecord =>
  rowRecord({
    opponentId: 'mcts-100',
    anchor: 'board:.........|mcts-100',
    promptText: 'p',
    responseText: 'r',
    responseTokens: [4, 5],
    logprobs: [-0.1, -0.2],
    ...over,
  });

describe('rowsToAdvantageInputs', () => {
  const rows = [
    record({ reward: 10 }),
    record({ slot: 'g0/s1', opponentId: 'random', anchor: 'board:.........|random', reward: -10 }),
    record({
      slot: 'g0/s1',
      opponentId: 'random',
      attempt: 1,
      turn: -1,
      phase: 'reflect',
      anchor: 'reflection|random',
    }),
  ];

  it('maps fields and counts response tokens', () => {
    expect(rowsToAdvantageInputs(rows)[0]).toEqual({
      group: 'g0',
      slot: 'g0/s0',
      attempt: 0,
      phase: 'play',
      anchor: 'board:.........|mcts-100',
      reward: 10,
      valid: true,
      responseTokens: 2,
    });
  });

  it("'per-opponent' splits groups by opponent; 'mixed' drops the opponent from anchors", () => {
    const per = rowsToAdvantageInputs(rows, { grouping: 'per-opponent' });
    expect(per.map((r) => r.group)).toEqual(['g0|mcts-100', 'g0|random', 'g0|random']);
    const mixed = rowsToAdvantageInputs(rows, { grouping: 'mixed' });
    expect(mixed.map((r) => r.anchor)).toEqual(['board:.........', 'board:.........', 'reflection']);
    // recorded anchors keep opponents apart in step groups; mixed anchors merge them
    expect(computeAdvantages(rowsToAdvantageInputs(rows))[0]?.stepAdvantage).toBe(0);
    expect(computeAdvantages(mixed)[0]?.stepAdvantage).not.toBe(0);
    // per-opponent groups of one row each: baseline 0
    expect(computeAdvantages(per)[0]?.episodeAdvantage).toBe(10);
  });
});
