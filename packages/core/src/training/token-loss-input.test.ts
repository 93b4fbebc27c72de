import type { LearnerRowV1 } from '@mage-rl/spec';
import { describe, expect, it } from 'vitest';
import { tokenLossInputOf } from './token-loss-input';

const row = (
  responseTokens: number[],
  oldLogprobs: number[],
  advantage: number,
  ref?: number[],
): LearnerRowV1 => ({
  promptTokens: [9],
  responseTokens,
  oldLogprobs,
  advantage,
  ...(ref ? { refLogprobs: ref } : {}),
});

describe('tokenLossInputOf', () => {
  it('flattens the response tokens in row order with their row, advantage and log-probs', () => {
    const rows = [row([1, 2], [-1, -2], 0.5, [-0.5, -0.25]), row([3], [-3], -1, [-0.75])];
    const input = tokenLossInputOf(rows, [[-0.1, -0.2], Float32Array.of(-0.3)]);
    expect([...input.logprobs]).toEqual([-0.1, -0.2, -0.3].map(Math.fround));
    expect([...input.oldLogprobs]).toEqual([-1, -2, -3]);
    expect([...input.advantages]).toEqual([0.5, 0.5, -1]);
    expect([...input.rowOfToken]).toEqual([0, 0, 1]);
    expect([...(input.refLogprobs ?? [])]).toEqual([-0.5, -0.25, -0.75]);
  });

  it('has NaN where a log-prob is missing, and reference log-probs only when every row has them', () => {
    const input = tokenLossInputOf([row([1, 2], [-1], 1, [-0.5]), row([3], [-3], 1)], [[-0.1]]);
    expect([...input.logprobs].map(Number.isNaN)).toEqual([false, true, true]);
    expect([...input.oldLogprobs].map(Number.isNaN)).toEqual([false, true, false]);
    expect('refLogprobs' in input).toBe(false);
    const short = tokenLossInputOf([row([1, 2], [-1, -2], 1, [-0.5])], [[-0.1, -0.2]]);
    expect([...(short.refLogprobs ?? [])].map(Number.isNaN)).toEqual([false, true]);
  });

  it('is empty for rows without response tokens', () => {
    const input = tokenLossInputOf([row([], [], 1)], [[]]);
    expect(input.logprobs).toHaveLength(0);
    expect(input.rowOfToken).toHaveLength(0);
  });
});
