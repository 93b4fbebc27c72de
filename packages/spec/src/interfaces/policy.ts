import type { AttemptOutcome, EnvObservationV1 } from './env';

/**
 * A batched language policy. Given prompts as chat messages it returns the response text, the
 * response token ids and their sampling log-probs. Text-only policies (scripted, HTTP servers without
 * token ids) return empty token arrays.
 */

export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  readonly role: ChatRole;
  readonly content: string;
  /**
   * Token ids of an earlier response of this policy (transcript mode). When present, a token-level policy
   * must use them verbatim instead of re-tokenising `content`, so training sees exactly what was sampled.
   */
  readonly tokens?: readonly number[];
}

export type TurnPhase = 'play' | 'reflect';

/**
 * Structured facts about the turn, for scripted, teacher and test policies. Language policies must ignore
 * them: a model sees only `messages`.
 */
export interface PolicyFactsV1 {
  readonly slot: string;
  /** The seed of the slot's task: the same on every turn of the meta-episode. */
  readonly taskSeed?: number;
  /** 0-based attempt; for a reflect turn, the attempt about to start. */
  readonly attempt: number;
  /** Play turns: the current observation (its `info` holds the env's structured view). */
  readonly observation?: EnvObservationV1;
  /**
   * Play turns: the earlier attempts of this meta-episode whose notes are in the context (a valid reflect
   * turn followed them), oldest first; absent when there are none (no memory, no notes, attempt 1). A
   * teacher that reads its notes uses only these: what its own notes carry.
   */
  readonly earlier?: readonly FinishedAttemptFactsV1[];
  /** Reflect turns: how the attempt just finished went. */
  readonly finished?: FinishedAttemptFactsV1;
}

/** How a finished attempt went, as the env told it. */
export interface FinishedAttemptFactsV1 {
  readonly outcome: AttemptOutcome;
  /** The env's history lines of the attempt, in order. */
  readonly events: readonly string[];
  /** Extra text the env revealed after the attempt (Kuhn showdown cards, Rock-Paper-Scissors' rounds), if any. */
  readonly reveal?: string;
}

export interface PolicyRequestV1 {
  /** The conversation so far; the last message is the env's (or reflect) prompt, role `user`. */
  readonly messages: readonly ChatMessage[];
  readonly phase: TurnPhase;
  /** Per-request sampling seed: results do not depend on how requests are batched. */
  readonly seed?: number;
  readonly maxTokens?: number;
  /** Generation stops after any of these strings (included in the response). */
  readonly stop?: readonly string[];
  /** Structured facts for non-language policies (never part of the prompt). */
  readonly facts?: PolicyFactsV1;
}

export interface SamplingOptions {
  readonly temperature?: number;
  readonly topK?: number;
  readonly topP?: number;
  readonly maxTokens?: number;
  readonly signal?: AbortSignal;
}

export interface PolicyResponseV1 {
  readonly text: string;
  /** The whole conditioning context as the policy tokenised it (empty for text-only policies). */
  readonly promptTokens: readonly number[];
  /** Response token ids (empty for text-only policies). */
  readonly tokens: readonly number[];
  /** Sampling log-prob of each response token (same length as `tokens`). */
  readonly logprobs: readonly number[];
  readonly finishReason: 'stop' | 'length' | 'eos';
}

export interface PolicyV1 {
  readonly specificationVersion: 'v1';
  readonly id: string;
  /** One response per request, in request order. */
  generate(
    requests: readonly PolicyRequestV1[],
    options?: SamplingOptions,
  ): Promise<readonly PolicyResponseV1[]>;
}
