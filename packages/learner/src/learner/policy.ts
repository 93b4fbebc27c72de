/** The learner's `PolicyV1`: chat requests through the tokenizer and the batched generator. */

import {
  type PolicyRequestV1,
  type PolicyResponseV1,
  type PolicyV1,
  type SamplingOptions,
  throwIfAborted,
} from '@mage-rl/core';
import type { GenerateTokensOptions, Generator } from '../sampling/generator';
import type { TokenizerV1 } from '../tokenizer/tokenizer';
import { zip } from '../util/arrays';
import type { SampledResponse } from './sampled';

export interface LearnerPolicyOptions {
  readonly id: string;
  readonly tokenizer: TokenizerV1;
  readonly generator: Generator;
  /**
   * The model's context length: a response is cut where prompt and response fill it, and a prompt that
   * fills it alone gets an empty response (finish reason `length`) instead of failing the whole batch.
   */
  readonly maxPositions: number;
  /** Response length limit when neither the request nor the call sets one. */
  readonly defaultMaxTokens: number;
  /** Sampling defaults under the call's own options. */
  readonly sampling: Omit<SamplingOptions, 'signal' | 'maxTokens'>;
  /** Called with every response before it is returned. */
  readonly onSampled: (response: SampledResponse) => void;
}

/** Generator options of a `generate` call: per-request seeds and limits, the call's sampling over the defaults. */
function generatorRequest(
  o: LearnerPolicyOptions,
  requests: readonly PolicyRequestV1[],
  prompts: readonly number[][],
  sampling: SamplingOptions,
  nextSeed: () => string,
): GenerateTokensOptions {
  const { tokenizer } = o;
  return {
    prompts,
    seeds: requests.map((r) => r.seed ?? nextSeed()),
    maxTokens: requests.map((r, i) =>
      Math.min(r.maxTokens ?? sampling.maxTokens ?? o.defaultMaxTokens, roomAfter(o, prompts[i] as number[])),
    ),
    sampling: {
      temperature: sampling.temperature ?? o.sampling.temperature ?? 1,
      topK: sampling.topK ?? o.sampling.topK ?? 0,
      topP: sampling.topP ?? o.sampling.topP ?? 1,
    },
    eosTokenIds: tokenizer.eosTokenIds,
    shouldStop: (b, tokens) => {
      const stop = requests[b]?.stop;
      if (stop === undefined || stop.length === 0) return false;
      const text = tokenizer.decode(tokens);
      return stop.some((s) => s.length > 0 && text.includes(s));
    },
    ...(sampling.signal === undefined ? {} : { signal: sampling.signal }),
  };
}

/** How many tokens fit after `prompt` in the model's context. */
const roomAfter = (o: LearnerPolicyOptions, prompt: readonly number[]): number =>
  Math.max(0, o.maxPositions - prompt.length);

/** The answer to a prompt that leaves no room for a response. */
const NO_ROOM = { tokens: [], logprobs: [], finishReason: 'length' } as const;

/** The policy: requests encoded as chat prompts, responses decoded; seeds default to `<id>/generate/<n>`. */
export function createLearnerPolicy(o: LearnerPolicyOptions): PolicyV1 {
  let generateCounter = 0;
  return {
    specificationVersion: 'v1',
    id: o.id,
    async generate(
      requests: readonly PolicyRequestV1[],
      sampling: SamplingOptions = {},
    ): Promise<readonly PolicyResponseV1[]> {
      throwIfAborted(sampling.signal);
      const prompts = requests.map((r) => o.tokenizer.encodeChat(r.messages));
      const nextSeed = () => `${o.id}/generate/${generateCounter++}`;
      // Prompts that fill the context are answered without the generator; the others keep their order.
      const fits = prompts.flatMap((p, i) => (roomAfter(o, p) > 0 ? [i] : []));
      const generated =
        fits.length === 0
          ? []
          : await o.generator.generate(
              generatorRequest(
                o,
                fits.map((i) => requests[i] as PolicyRequestV1),
                fits.map((i) => prompts[i] as number[]),
                sampling,
                nextSeed,
              ),
            );
      let next = 0;
      const rows = prompts.map((p) =>
        roomAfter(o, p) > 0 ? (generated[next++] as (typeof generated)[number]) : NO_ROOM,
      );
      return zip(prompts, rows).map(([promptTokens, r]) => {
        o.onSampled({ promptTokens, tokens: r.tokens, logprobs: r.logprobs });
        return {
          text: o.tokenizer.decode(r.tokens),
          promptTokens,
          tokens: r.tokens,
          logprobs: r.logprobs,
          finishReason: r.finishReason,
        };
      });
    },
  };
}
