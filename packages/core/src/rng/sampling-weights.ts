/**
 * The draw weights of a sampled token, shared by the policies that sample from exact log-probs (the
 * tabular learner of `@mage-rl/core/testing`, the fake model of `@mage-rl/tinker/testing`).
 */

import { at } from '@mage-rl/spec';

/**
 * Weights for `rng.weighted` over candidates sorted by log-prob, most likely first: the softmax at
 * `temperature` (unnormalised: relative to the first candidate), cut to the shortest prefix whose mass
 * reaches `topP` of the whole (at least one candidate) when `topP` is below 1.
 */
export function samplingWeights(logprobs: readonly number[], temperature: number, topP = 1): number[] {
  const top = at(logprobs, 0);
  const weights = logprobs.map((l) => Math.exp((l - top) / temperature));
  if (topP < 1) {
    const total = weights.reduce((a, b) => a + b, 0);
    let acc = 0;
    let keep = 0;
    for (const w of weights) {
      if (acc >= topP * total) break;
      acc += w;
      keep++;
    }
    weights.length = Math.max(1, keep);
  }
  return weights;
}
