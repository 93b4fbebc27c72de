/** Record fixtures for tests of code that reads rollout rows. */

import type { RowRecord } from '@mage-rl/spec';

/**
 * A valid play row of slot `g0/s0` (attempt 0, turn 0, reward 0, three prompt and two response tokens)
 * with `over` on top.
 */
export function rowRecord(over: Partial<RowRecord> = {}): RowRecord {
  return {
    group: 'g0',
    slot: 'g0/s0',
    opponentId: 'o',
    attempt: 0,
    turn: 0,
    phase: 'play',
    anchor: 'x',
    promptText: '',
    responseText: '',
    promptTokens: [1, 2, 3],
    responseTokens: [1, 2],
    logprobs: [0, 0],
    reward: 0,
    valid: true,
    ...over,
  };
}
