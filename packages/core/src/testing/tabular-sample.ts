/** Sampling one response from the tabular policy, with temperature, top-k and top-p. */

import type { PolicyRequestV1, PolicyResponseV1, SamplingOptions } from '@mage-rl/spec';
import { at } from '@mage-rl/spec';
import { createRng, samplingWeights } from '../rng';
import { encodePromptKey } from './tabular-prompt-key';
import { logprobsOf, type TabularState } from './tabular-state';

interface Ranked {
  readonly token: number;
  readonly logprob: number;
}

/**
 * One candidate for `key`: the most likely at temperature ≤ 0, else drawn from the softmax at the given
 * temperature over the top-k (then top-p) candidates, with the request's seed or the next unseeded
 * stream of the learner.
 */
export function sampleResponse(
  state: TabularState,
  key: string,
  request: PolicyRequestV1,
  sampling: SamplingOptions,
): PolicyResponseV1 {
  const lp = logprobsOf(state, key);
  const temperature = sampling.temperature ?? 1;
  const ranked = [...lp.entries()]
    .map(([token, logprob]): Ranked => ({ token, logprob }))
    .sort((a, b) => b.logprob - a.logprob || a.token - b.token);
  const allowed = sampling.topK !== undefined && sampling.topK > 0 ? ranked.slice(0, sampling.topK) : ranked;
  const choice = temperature <= 0 ? at(allowed, 0) : draw(state, allowed, temperature, request, sampling);
  return {
    text: at(state.candidates, choice.token),
    promptTokens: encodePromptKey(key),
    tokens: [choice.token],
    logprobs: [choice.logprob],
    finishReason: 'stop',
  };
}

function draw(
  state: TabularState,
  allowed: readonly Ranked[],
  temperature: number,
  request: PolicyRequestV1,
  sampling: SamplingOptions,
): Ranked {
  const weights = samplingWeights(
    allowed.map((r) => r.logprob),
    temperature,
    sampling.topP,
  );
  const rng =
    request.seed === undefined ? state.rng.split(`unseeded-${state.unseeded++}`) : createRng(request.seed);
  return at(allowed, rng.weighted(weights));
}
