/** The loss the update benches time. */

import type { TokenLossFn } from '@mage-rl/core';

/**
 * The policy-gradient loss of on-policy rows: the ratio is 1 (the rows' log-probs are the current ones),
 * so its weights (1/n per response token) need no current log-probs and the learner runs no scoring pass,
 * as for rows it sampled itself or a supervised loss. Its value is −mean_t log p per row, which the
 * PyTorch side of the `qwen3` bench minimises too.
 */
export const onPolicyLoss: TokenLossFn = Object.assign(
  (input: Parameters<TokenLossFn>[0]) => {
    const n = input.logprobs.length;
    let total = 0;
    for (const lp of input.logprobs) total -= lp / n;
    return { weights: new Float32Array(n).fill(1 / n), loss: total, stats: { tokens: n } };
  },
  { usesCurrentLogprobs: false },
);
