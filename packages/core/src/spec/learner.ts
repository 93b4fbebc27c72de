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

/** Inputs of a token loss, flattened over the response tokens of a mini-batch. */
export interface TokenLossInput {
  readonly logprobs: Float32Array;
  readonly oldLogprobs: Float32Array;
  readonly refLogprobs?: Float32Array;
  readonly advantages: Float32Array;
  /** Row index of every token (for per-row aggregation). */
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

export type TokenLossFn = (input: TokenLossInput) => TokenLossOutput;

export interface LearnerUpdateRequest {
  readonly rows: readonly LearnerRowV1[];
  readonly loss: TokenLossFn;
  /** Entropy bonus coefficient (computed inside the learner, which sees the full distribution). */
  readonly entropyCoef?: number;
  readonly epochs?: number;
  readonly miniBatchRows?: number;
  readonly signal?: AbortSignal;
}

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
  /** Per-token log-probs of each row's response tokens under the current weights (for π_ref, π_old). */
  logprobs(rows: readonly Pick<LearnerRowV1, 'promptTokens' | 'responseTokens'>[]): Promise<Float32Array[]>;
  update(request: LearnerUpdateRequest): Promise<LearnerUpdateResult>;
  /** Writes weights, optimizer state and metadata atomically into `dir`. */
  save(dir: string): Promise<void>;
  load(dir: string): Promise<void>;
  dispose(): Promise<void>;
}
