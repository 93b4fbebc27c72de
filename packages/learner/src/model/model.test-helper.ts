/** Tiny models for the gradient and graph tests of the model code. */

import { createRng, type Rng } from '@mage-rl/core';
import type { Tensor } from '../graph/tensor';
import { type Architecture, defineModelConfig, type ModelConfig } from './config';
import { initParams, type ParamSpec, paramSpecs } from './params';

/** Hidden size 8, 2 layers, 4 query heads over 2 KV heads of 4 dimensions, MLP width 12. */
export const tinyConfig = (architecture: Architecture, vocabSize: number, tie: boolean): ModelConfig =>
  defineModelConfig({
    architecture,
    vocabSize,
    hiddenSize: 8,
    numLayers: 2,
    numHeads: 4,
    numKvHeads: 2,
    headDim: 4,
    intermediateSize: 12,
    tieWordEmbeddings: tie,
  });

export type GradFeed = { tensor: Tensor; data: Float64Array | BigInt64Array };

/**
 * Every parameter of `config` (initialised from seed 5 with std 0.5) in float64, fed to its tensor of
 * `params`; `adjust` may change a parameter's values first.
 */
export function paramFeeds(
  config: ModelConfig,
  params: Readonly<Record<string, Tensor>>,
  adjust?: (spec: ParamSpec, values: Float64Array) => void,
): GradFeed[] {
  const init = initParams(config, createRng(5), { std: 0.5 });
  return paramSpecs(config).map((s) => {
    const values = Float64Array.from(init.get(s.name) as Float32Array);
    adjust?.(s, values);
    return { tensor: params[s.name] as Tensor, data: values };
  });
}

/** `n` token ids of the vocabulary, id `i` from the stream `rng.split(label).split(i)`. */
export const tokenIds = (rng: Rng, label: string, n: number, vocabSize: number): BigInt64Array =>
  BigInt64Array.from({ length: n }, (_, i) => BigInt(rng.split(label).split(i).int(vocabSize)));
