/**
 * The input of a `TokenLossFn` for a mini-batch of plain rows, shared by learners that score each row's
 * response tokens on their own (the tabular learner of `@mage-rl/core/testing`, `@mage-rl/tinker`).
 */

import type { LearnerRowV1, TokenLossInput } from '@mage-rl/spec';

/**
 * The rows' response tokens flattened in row order: `current[i][j]` is the current log-prob of row `i`'s
 * response token `j` (NaN where it is missing), with the row's sampling log-prob, its advantage, its row
 * index, and its reference log-prob when every row has them (NaN where a row's list is short).
 */
export function tokenLossInputOf(
  rows: readonly LearnerRowV1[],
  current: readonly (ArrayLike<number> | undefined)[],
): TokenLossInput {
  const n = rows.reduce((k, r) => k + r.responseTokens.length, 0);
  const logprobs = new Float32Array(n);
  const oldLogprobs = new Float32Array(n);
  const advantages = new Float32Array(n);
  const rowOfToken = new Int32Array(n);
  const hasRef = rows.every((r) => r.refLogprobs !== undefined);
  const refLogprobs = hasRef ? new Float32Array(n) : undefined;
  let k = 0;
  for (const [i, row] of rows.entries()) {
    const lp = current[i];
    for (let j = 0; j < row.responseTokens.length; j++) {
      logprobs[k] = lp?.[j] ?? Number.NaN;
      oldLogprobs[k] = row.oldLogprobs[j] ?? Number.NaN;
      if (refLogprobs) refLogprobs[k] = row.refLogprobs?.[j] ?? Number.NaN;
      advantages[k] = row.advantage;
      rowOfToken[k] = i;
      k++;
    }
  }
  return { logprobs, oldLogprobs, advantages, rowOfToken, ...(refLogprobs ? { refLogprobs } : {}) };
}
