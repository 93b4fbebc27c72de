/**
 * A trainable policy. The learner computes per-token log-probs of response tokens under its current
 * weights; a `TokenLossFn` (for example the PPO objective of `@mage-rl/gigpo`) turns them into per-token
 * weights; the learner back-propagates loss = −Σ weight · log p(token) and steps its optimizer.
 */

import type { PolicyV1 } from './policy';

export interface LearnerRowV1 {
  readonly promptTokens: readonly number[];
  readonly responseTokens: readonly number[];
  /** Sampling log-probs recorded at rollout time (π_old). */
  readonly oldLogprobs: readonly number[];
  /** Reference-policy log-probs for the KL term (optional). */
  readonly refLogprobs?: readonly number[];
  /** Advantage of the row: every response token gets it. */
  readonly advantage: number;
}

/**
 * One response of a packed sequence: `tokens[start .. start + length)` of the `PackedRowV1`, scored in
 * the context of every token before it. `length` equals `oldLogprobs.length`.
 */
export interface PackedSpanV1 {
  /** Index in `tokens` of the span's first response token (≥ 1: a span needs a token before it). */
  readonly start: number;
  readonly length: number;
  readonly oldLogprobs: readonly number[];
  readonly refLogprobs?: readonly number[];
  readonly advantage: number;
}

/**
 * Several learner rows in one token sequence (transcript layout: every turn of a slot extends the
 * previous one): one forward/backward scores every span. Equivalent to the plain rows
 * `{ promptTokens: tokens[0..start), responseTokens: tokens[start..start+length), … }` of its spans.
 */
export interface PackedRowV1 {
  readonly tokens: readonly number[];
  /** In increasing, non-overlapping `start` order. */
  readonly spans: readonly PackedSpanV1[];
}

/** A row of an update or log-prob request: plain, or packed (only for learners with `packedRows`). */
export type LearnerInputRowV1 = LearnerRowV1 | PackedRowV1;

/** Inputs of a token loss, flattened over the response tokens of a mini-batch. */
export interface TokenLossInput {
  readonly logprobs: Float32Array;
  readonly oldLogprobs: Float32Array;
  readonly refLogprobs?: Float32Array;
  readonly advantages: Float32Array;
  /**
   * Row index of every token (for per-row aggregation). With packed rows every span counts as a row:
   * tokens come span by span, in the same order as the equivalent plain rows.
   */
  readonly rowOfToken: Int32Array;
}

export interface TokenLossOutput {
  /**
   * Per-token weights w such that the gradient of the true loss equals the gradient of −Σ w·log p at the
   * current parameters (w = −∂loss/∂log p).
   */
  readonly weights: Float32Array;
  readonly loss: number;
  /** Scalars for logging: clip fraction, approximate KL … */
  readonly stats: Readonly<Record<string, number>>;
}

/**
 * The PPO token weights in closed form, so that a learner can compute them inside its training pass from
 * the log-probs that pass computes (no scoring pass before it). With ρ = exp(logπ − logπ_old), advantage
 * A, aggregation scale s and d = logπ_ref − logπ, the weight of a token is w = −s·(g_pg + g_kl):
 * - g_pg = −A·ρ, or 0 where the clipped term is the larger (ρ outside [ratioLow, ratioHigh] on the side A
 *   pushes towards), or 0 where A < 0 and max(−A·ρ, −A·clip(ρ)) > −dualClip·A;
 * - g_kl = klCoef·(1 − exp(min(max(d, klEdges.lo), klEdges.hi))), or 0 where `releaseAdvantaged` and
 *   A ≠ 0 and d > klEdges.hi.
 * The function itself must return these weights from the same inputs (the form is only a faster path).
 */
export interface PpoWeightFormV1 {
  readonly kind: 'ppo';
  readonly ratioLow: number;
  readonly ratioHigh: number;
  /** `Infinity` without a dual clip. */
  readonly dualClip: number;
  readonly klCoef: number;
  readonly klEdges: { readonly lo: number; readonly hi: number };
  readonly releaseAdvantaged: boolean;
  /** The aggregation scales s of the tokens of a mini-batch (their loss is Σ s·ℓ). */
  scales(rowOfToken: Int32Array): Float64Array;
}

export type TokenLossFn = ((input: TokenLossInput) => TokenLossOutput) & {
  /**
   * `false` when the weights do not depend on the current log-probs (weighted cross-entropy). A learner
   * may then skip its scoring pass: it calls the function with `logprobs` all NaN for the weights, and
   * again with the log-probs of its training pass for the loss and stats it reports. Default `true`.
   */
  readonly usesCurrentLogprobs?: boolean;
  /**
   * The weights in closed form (`PpoWeightFormV1`): a learner that supports it computes them in its
   * training pass instead of scoring first, then calls the function with that pass's log-probs for the
   * loss and stats it reports. Learners without support ignore it.
   */
  readonly weightForm?: PpoWeightFormV1;
};

export interface LearnerUpdateRequest {
  /** Packed rows only when the learner declares `packedRows`. */
  readonly rows: readonly LearnerInputRowV1[];
  readonly loss: TokenLossFn;
  /** Entropy bonus coefficient (computed inside the learner, which sees the full distribution). */
  readonly entropyCoef?: number;
  readonly epochs?: number;
  /**
   * Rows per optimizer step. A packed row counts as its spans and is never split: a mini-batch takes
   * whole packed rows and closes when the spans so far reach the next multiple of this number.
   */
  readonly miniBatchRows?: number;
  /**
   * Reference log-probs (π_ref) of rows that come without `refLogprobs`, in `logprobs`' layout: a learner
   * that declares `referenceAhead` asks for the rows of the mini-batches ahead while it trains the ones
   * before, so the reference's forward passes overlap its training. Sent only to learners that declare it.
   */
  readonly referenceLogprobs?: (rows: readonly LogprobRowV1[]) => Promise<readonly Float32Array[]>;
  readonly signal?: AbortSignal;
}

/** A row to score: plain (prompt + response) or packed (its spans' tokens are scored). */
export type LogprobRowV1 =
  | Pick<LearnerRowV1, 'promptTokens' | 'responseTokens'>
  | { readonly tokens: readonly number[]; readonly spans: readonly Pick<PackedSpanV1, 'start' | 'length'>[] };

export interface LearnerUpdateResult {
  /** Optimizer steps taken. */
  readonly steps: number;
  /** Steps skipped because loss or gradients were NaN/Inf. */
  readonly skippedSteps: number;
  readonly loss: number;
  readonly gradNorm: number;
  readonly entropy: number;
  readonly tokens: number;
  readonly seconds: number;
  readonly stats: Readonly<Record<string, number>>;
}

export interface LearnerV1 {
  readonly specificationVersion: 'v1';
  readonly id: string;
  /** Samples from the current weights. */
  readonly policy: PolicyV1;
  /**
   * Set when `update` and `logprobs` accept `PackedRowV1` rows; `maxTokens` is the longest sequence
   * the learner takes (its model's positions). Learners without it get plain rows only.
   */
  readonly packedRows?: { readonly maxTokens: number };
  /** Set when `update` takes `referenceLogprobs` instead of rows that carry their reference log-probs. */
  readonly referenceAhead?: boolean;
  /**
   * Per-token log-probs of each row's response tokens under the current weights (for π_ref, π_old);
   * for a packed row, the log-probs of all its spans concatenated in span order.
   */
  logprobs(rows: readonly LogprobRowV1[]): Promise<Float32Array[]>;
  update(request: LearnerUpdateRequest): Promise<LearnerUpdateResult>;
  /** Writes weights, optimizer state and metadata atomically into `dir`. */
  save(dir: string): Promise<void>;
  load(dir: string): Promise<void>;
  dispose(): Promise<void>;
}
