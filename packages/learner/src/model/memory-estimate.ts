/**
 * Estimated memory of one graph run, for the runner's session budget (onnxruntime keeps a session's
 * arena at its largest run). Fitted on mage-tiny (d128, 4 layers, 344 SwiGLU, 222 ids) from the RSS
 * growth of one run of a fresh session, within ~25%: training 8×64 / 16×128 / 8×256 / 1×2048 tokens
 * 67 / 234 / 315 / 674 MB; scoring 16×128 / 8×256 / 1×2048 54 / 74 / 134 MB; prefill 8×512 / 32×256
 * 210 / 350 MB. Activations per token scale with layers × (hidden + SwiGLU width) plus the vocabulary
 * (logits, probabilities, their gradient); attention with layers × heads × keys.
 */

import type { ModelConfig } from './config';
import { defaultVocabChunk } from './lm-head-vocab';

export interface RunShape {
  /** `train`: forward and backward (activations kept); `forward`: scoring, prefill, decode. */
  readonly kind: 'train' | 'forward';
  readonly rows: number;
  /** New positions per row. */
  readonly tokens: number;
  /** Positions each token attends to (cached + new; the sequence length without a cache). */
  readonly keys: number;
  /** A past KV buffer is concatenated with the new keys/values (decode). */
  readonly past?: boolean;
  /**
   * The LM head runs only at this many positions, in vocabulary chunks (large-vocabulary graphs): the
   * vocabulary term is then a few blocks and the output embedding's gradient, not a row per position.
   */
  readonly headRows?: number;
  /**
   * The LM head runs over the full vocabulary at only this many positions (the generator's graphs: each
   * row's last token); default every position.
   */
  readonly logitsRows?: number;
}

/** Estimated bytes of a session's arena after a run of `shape`. */
export function estimateSessionBytes(c: ModelConfig, shape: RunShape): number {
  const { rows, tokens, keys } = shape;
  const n = rows * tokens;
  const train = shape.kind === 'train';
  const perToken =
    c.numLayers * (train ? 14 : 4) * (c.hiddenSize + c.intermediateSize) +
    c.numLayers * c.numHeads * keys * (train ? 2 : 0.5);
  // Logits, probabilities and their gradient at every position the head runs at in one block.
  const logits = shape.headRows === undefined ? (shape.logitsRows ?? n) * 3 * c.vocabSize : 0;
  // One layer's concatenated past and new keys and values at a time.
  const past = shape.past === true ? rows * 2 * c.numKvHeads * keys * c.headDim : 0;
  // Large-vocabulary head: a few [rows × chunk] blocks alive at a time, and in training the output
  // embedding's gradient in its blocks, concatenated, transposed and scattered into.
  const head =
    shape.headRows === undefined
      ? 0
      : 4 * shape.headRows * defaultVocabChunk(shape.headRows, c.vocabSize) +
        (train ? 4 : 1) * c.vocabSize * c.hiddenSize;
  return 4 * (n * perToken + logits + past + head);
}
