/** The small model the learner's tests train and sample: byte vocabulary, 2 layers of width 16. */

import { defineModelConfig } from '../model/config';

export const TINY_CONFIG = defineModelConfig({
  vocabSize: 257,
  hiddenSize: 16,
  numLayers: 2,
  numHeads: 4,
  numKvHeads: 2,
  intermediateSize: 32,
  maxPositions: 128,
});
