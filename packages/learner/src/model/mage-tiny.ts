/**
 * mage-tiny: the project's own ~1 M-parameter Llama for the compact prompt grammar, paired
 * with a word-level tokenizer (`createWordLevelTokenizer`) whose vocabulary comes from the warm-start
 * corpus.
 */

import { defineModelConfig, type ModelConfig, type ModelConfigInput } from './config';

/** Everything of mage-tiny's architecture except the vocabulary size. */
export const MAGE_TINY_CONFIG = {
  architecture: 'llama',
  hiddenSize: 128,
  numLayers: 4,
  numHeads: 4,
  numKvHeads: 2,
  headDim: 32,
  /** SwiGLU hidden size: 8/3 · 128 rounded up to a multiple of 8. */
  intermediateSize: 344,
  rmsNormEps: 1e-5,
  ropeTheta: 10000,
  tieWordEmbeddings: true,
  /** Compact 3-attempt transcripts fit: the longest prompt + response of a warm-start corpus is ~460 ids. */
  maxPositions: 1024,
} as const satisfies Omit<ModelConfigInput, 'vocabSize'>;

export interface MageTinyConfigOptions {
  readonly bosTokenId?: number;
  readonly eosTokenId?: number;
}

/**
 * mage-tiny's `ModelConfig` for a vocabulary of `vocabSize` ids (0.73 M parameters plus 128 per id: 0.76 M
 * with the ~220-id compact vocabulary, 0.80 M with 600 ids).
 */
export function createMageTinyConfig(vocabSize: number, options: MageTinyConfigOptions = {}): ModelConfig {
  return defineModelConfig({ ...MAGE_TINY_CONFIG, vocabSize, ...options });
}
