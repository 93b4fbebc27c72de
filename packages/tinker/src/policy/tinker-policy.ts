/**
 * A `PolicyV1` that samples through the Tinker service (`asample`): the conversation is tokenised here
 * (the service takes token ids), sampled from the learner's latest sampler weights (or the base model
 * before the first update), and the response decoded here. Design: architecture/tinker.md.
 */

import {
  type ChatMessage,
  type PolicyRequestV1,
  type PolicyResponseV1,
  type PolicyV1,
  RolloutError,
  type SamplingOptions,
  throwIfAborted,
} from '@mage-rl/core';
import { modelInputOf, sampleResponseSchema } from '../api/wire';
import type { TinkerClient } from '../client/tinker-client';

/**
 * The tokenizer of the base model, as this package needs it (the learner package's `TokenizerV1`, for
 * example a Hugging Face tokenizer, has this shape).
 */
export interface TinkerTokenizer {
  /** Tokens that end a response. */
  readonly eosTokenIds: readonly number[];
  /** The prompt of a conversation, ending with the opening of the assistant's turn; `tokens` verbatim. */
  encodeChat(messages: readonly ChatMessage[]): number[];
  decode(ids: readonly number[]): string;
}

/** What a request samples from: sampler weights (`tinker://…`) or the untrained base model. */
export type SamplingTarget = { readonly modelPath: string } | { readonly baseModel: string };

export interface TinkerPolicyOptions {
  readonly client: TinkerClient;
  readonly tokenizer: TinkerTokenizer;
  /** Read at every `generate`: the learner moves it after each update. */
  readonly target: () => SamplingTarget;
  /** `max_tokens` when neither the request nor the call sets one. Default 64. */
  readonly defaultMaxTokens?: number;
  /** Requests in flight at once. Default 16. */
  readonly concurrency?: number;
  readonly id?: string;
}

/** Runs `work` over `items` with at most `limit` in flight; results in input order. */
async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** A policy sampling through the service (see the module comment). */
export function createTinkerPolicy(options: TinkerPolicyOptions): PolicyV1 {
  const { client, tokenizer } = options;
  const eos = new Set(tokenizer.eosTokenIds);
  const concurrency = options.concurrency ?? 16;

  async function one(request: PolicyRequestV1, sampling: SamplingOptions): Promise<PolicyResponseV1> {
    const promptTokens = tokenizer.encodeChat(request.messages);
    const target = options.target();
    const stop = request.stop?.filter((s) => s.length > 0) ?? [];
    const body = {
      prompt: modelInputOf(promptTokens),
      sampling_params: {
        max_tokens: request.maxTokens ?? sampling.maxTokens ?? options.defaultMaxTokens ?? 64,
        ...(request.seed === undefined ? {} : { seed: request.seed }),
        // Stop strings when the request has some, else the end-of-sequence ids.
        stop: stop.length > 0 ? stop : [...tokenizer.eosTokenIds],
        temperature: sampling.temperature ?? 1,
        top_k: (sampling.topK ?? 0) > 0 ? sampling.topK : -1,
        top_p: sampling.topP ?? 1,
      },
      num_samples: 1,
      ...('modelPath' in target ? { model_path: target.modelPath } : { base_model: target.baseModel }),
      prompt_logprobs: false,
      topk_prompt_logprobs: 0,
      type: 'sample',
    };
    const result = await client.submit(
      '/api/v1/asample',
      body,
      sampleResponseSchema,
      sampling.signal ? { signal: sampling.signal } : {},
    );
    const sequence = result.sequences[0];
    if (sequence === undefined) {
      throw new RolloutError(
        'POLICY_FAILURE',
        'The Tinker service answered a sample request without a sequence.',
      );
    }
    const logprobs = sequence.logprobs ?? [];
    if (logprobs.length !== sequence.tokens.length) {
      throw new RolloutError(
        'POLICY_FAILURE',
        `The Tinker service sampled ${sequence.tokens.length} tokens with ${logprobs.length} log-probs; training needs one per token.`,
      );
    }
    const last = sequence.tokens.at(-1);
    const endsWithEos = last !== undefined && eos.has(last);
    return {
      text: tokenizer.decode(endsWithEos ? sequence.tokens.slice(0, -1) : sequence.tokens),
      promptTokens,
      tokens: sequence.tokens,
      logprobs,
      finishReason: sequence.stop_reason === 'length' ? 'length' : endsWithEos ? 'eos' : 'stop',
    };
  }

  return {
    specificationVersion: 'v1',
    id: options.id ?? 'tinker',
    async generate(requests, sampling = {}) {
      throwIfAborted(sampling.signal);
      return mapLimited(requests, concurrency, (r) => one(r, sampling));
    },
  };
}
