/**
 * Plain cross-entropy for supervised warm starts: loss = −Σ_j s_j · log p_j with s_j = 1/N under
 * token-mean (weights = mask / N; every flattened token is a response token, so the mask is all ones).
 * Advantages, old and reference log-probs are ignored.
 */

import type { TokenLossFn, TokenLossInput, TokenLossOutput } from '@mage-rl/spec';
import { at, InvalidArgumentError } from '@mage-rl/spec';
import { aggregationScales, type LossAggregation } from './aggregation';

export interface WeightedNllLossOptions {
  /** Default `token-mean`. */
  readonly aggregation?: LossAggregation;
}

/** Stats: `nll` (token-mean negative log-likelihood), `perplexity` (exp of it), `tokens`. */
export function weightedNllLoss(options: WeightedNllLossOptions = {}): TokenLossFn {
  const aggregation = options.aggregation ?? 'token-mean';
  const fn = (input: TokenLossInput): TokenLossOutput => {
    const n = input.logprobs.length;
    if (input.rowOfToken.length !== n) {
      throw new InvalidArgumentError(
        `weightedNllLoss: rowOfToken has ${input.rowOfToken.length} entries but logprobs has ${n}.`,
      );
    }
    const scales = aggregationScales(n, input.rowOfToken, aggregation);
    const weights = new Float32Array(n);
    let loss = 0;
    let nll = 0;
    for (let j = 0; j < n; j++) {
      const lp = at(input.logprobs, j);
      const s = at(scales, j);
      loss -= s * lp;
      nll -= lp;
      weights[j] = s;
    }
    const mean = n > 0 ? nll / n : 0;
    return { weights, loss, stats: { nll: mean, perplexity: Math.exp(mean), tokens: n } };
  };
  // The weights are the aggregation scales alone: learners may skip scoring before the backward pass.
  return Object.assign(fn, { usesCurrentLogprobs: false });
}
