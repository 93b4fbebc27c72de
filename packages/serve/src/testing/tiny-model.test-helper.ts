/** A small random model with a word-level tokenizer, served in tests. */

import { createRng } from '@mage-rl/core';
import { createWordLevelTokenizer, defineModelConfig, initParams } from '@mage-rl/learner';
import type { ServedModel } from '../engine/served-model';

export const WORDS =
  'the a cat dog sat on mat red blue green one two three four five six seven eight nine ten yes no'.split(
    ' ',
  );

export function tinyServedModel(seed = 'serve-test', id = 'tiny'): ServedModel {
  const tokenizer = createWordLevelTokenizer({ vocab: WORDS });
  const config = defineModelConfig({
    architecture: 'qwen3',
    vocabSize: tokenizer.vocabSize,
    hiddenSize: 32,
    numLayers: 2,
    numHeads: 4,
    numKvHeads: 2,
    headDim: 8,
    intermediateSize: 64,
    maxPositions: 128,
    tieWordEmbeddings: true,
    eosTokenId: tokenizer.eosTokenIds[0] as number,
  });
  // Larger weights than the default init so greedy text varies from token to token.
  return { id, config, tokenizer, weights: initParams(config, createRng(seed), { std: 0.5 }) };
}
