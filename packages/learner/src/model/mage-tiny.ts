/**
 * mage-tiny: the project's own ~1 M-parameter Llama for the compact prompt grammar, paired
 * with a word-level tokenizer (`createWordLevelTokenizer`) whose vocabulary comes from the warm-start
 * corpus.
 */

import { ConfigError } from '@mage-rl/core';
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

/**
 * A larger or smaller mage-tiny: the width and depth; the rest follows mage-tiny's proportions (heads of
 * 32, half as many key/value heads, SwiGLU 8/3 of the width rounded up to a multiple of 8).
 */
export interface MageTinySize {
  /** Width, a multiple of 32 (default 128). */
  readonly hiddenSize?: number | undefined;
  /** Layers (default 4). */
  readonly numLayers?: number | undefined;
}

export interface MageTinyConfigOptions {
  readonly bosTokenId?: number;
  readonly eosTokenId?: number;
  readonly size?: MageTinySize;
}

/** The architecture fields of a mage-tiny of `size` (`MAGE_TINY_CONFIG` at the default size). */
function sizedArchitecture(size: MageTinySize = {}) {
  const hiddenSize = size.hiddenSize ?? MAGE_TINY_CONFIG.hiddenSize;
  const { headDim } = MAGE_TINY_CONFIG;
  if (!Number.isInteger(hiddenSize) || hiddenSize < headDim || hiddenSize % headDim !== 0) {
    throw new ConfigError(
      `mage-tiny's hiddenSize must be a positive multiple of ${headDim}, got ${hiddenSize}.`,
    );
  }
  const numHeads = hiddenSize / headDim;
  return {
    ...MAGE_TINY_CONFIG,
    hiddenSize,
    numLayers: size.numLayers ?? MAGE_TINY_CONFIG.numLayers,
    numHeads,
    numKvHeads: Math.max(1, Math.floor(numHeads / 2)),
    intermediateSize: Math.ceil((hiddenSize * 8) / 3 / 8) * 8,
  };
}

/**
 * mage-tiny's `ModelConfig` for a vocabulary of `vocabSize` ids (0.73 M parameters plus 128 per id: 0.76 M
 * with the ~220-id compact vocabulary, 0.80 M with 600 ids), or of another `size`.
 */
export function createMageTinyConfig(vocabSize: number, options: MageTinyConfigOptions = {}): ModelConfig {
  const { size, ...ids } = options;
  return defineModelConfig({ ...sizedArchitecture(size), vocabSize, ...ids });
}
