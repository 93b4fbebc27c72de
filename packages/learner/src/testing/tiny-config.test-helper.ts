/** The small model the learner's tests train and sample: byte vocabulary, 2 layers of width 16. */

import { defineModelConfig } from '../model/config';
import { createByteTokenizer } from '../tokenizer/tokenizer';

export const TINY_CONFIG = defineModelConfig({
  vocabSize: 257,
  hiddenSize: 16,
  numLayers: 2,
  numHeads: 4,
  numKvHeads: 2,
  intermediateSize: 32,
  maxPositions: 128,
});

/** `createOnnxLearner` options of a tiny learner that trains fast (add the runner and any others). */
export const TINY_LEARNER = {
  config: TINY_CONFIG,
  tokenizer: createByteTokenizer(),
  seed: 1,
  optimizer: { lr: 1e-2, weightDecay: 0 },
  microBatchRows: 2,
} as const;
