/**
 * Responses this learner sampled, by their log-prob array: the prompt and response arrays returned with
 * them and the weights version that produced them. An `update` row that carries these very arrays while
 * the version is unchanged has current log-probs equal to its old ones (the sampler's log-probs match
 * the training graph's to 1e-5), so no scoring forward is needed for it.
 */

import type { Unit } from './rows';

export interface SampledResponse {
  readonly promptTokens: readonly number[];
  readonly tokens: readonly number[];
  readonly logprobs: readonly number[];
}

export interface SampledResponses {
  /** Remembers a response sampled under weights `version`. */
  record(response: SampledResponse, version: number): void;
  /** Whether every span of `u` is a response sampled under weights `version`. */
  covers(u: Unit, version: number): boolean;
}

/** Whether `a` equals `b[from .. to)`. */
function sameTokens(a: readonly number[], b: readonly number[], from: number, to: number): boolean {
  if (a.length !== to - from) return false;
  return a.every((t, i) => t === b[from + i]);
}

/** An empty registry (it holds its log-prob arrays weakly). */
export function createSampledResponses(): SampledResponses {
  const sampled = new WeakMap<
    object,
    { version: number; prompt: readonly number[]; tokens: readonly number[] }
  >();
  return {
    record(r, version) {
      sampled.set(r.logprobs, { version, prompt: r.promptTokens, tokens: r.tokens });
    },
    covers(u, version) {
      return u.spans.every((s) => {
        const entry = sampled.get(s.oldLogprobs);
        if (entry === undefined || entry.version !== version || s.oldLogprobs.length !== s.length)
          return false;
        if (u.plain !== undefined)
          return entry.prompt === u.plain.promptTokens && entry.tokens === u.plain.responseTokens;
        return (
          sameTokens(entry.prompt, u.tokens, 0, s.start) &&
          sameTokens(entry.tokens, u.tokens, s.start, s.start + s.length)
        );
      });
    },
  };
}
