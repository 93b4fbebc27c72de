/** Tiny models for the gradient and graph tests of the model code. */

import { createRng, type Rng } from '@mage-rl/core';
import { expect } from 'vitest';
import { checkGradients, randomFloat64 } from '../graph/gradcheck';
import type { Tensor } from '../graph/tensor';
import { type Architecture, defineModelConfig, type ModelConfig } from './config';
import { initParams, type ParamSpec, paramSpecs } from './params';
import { addModelLoss, type ModelLossOptions } from './training-graph';

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

export interface ModelGradientCheck {
  readonly config: ModelConfig;
  readonly seed: number;
  readonly batch: number;
  readonly seqLen: number;
  /** Head and attention options of `addModelLoss` beyond the shape. */
  readonly loss?: Omit<ModelLossOptions, 'config' | 'batch' | 'seqLen' | 'scored'>;
  /** Scored positions (flat indices into batch × sequence); default: every position. */
  readonly scored?: readonly number[];
  /** Changes a parameter's initial values (from the check's stream). */
  readonly adjust?: (spec: ParamSpec, values: Float64Array, rng: Rng) => void;
  /** Changes the drawn targets (say, to repeat one). */
  readonly targets?: (ids: BigInt64Array) => void;
}

/**
 * The model loss's gradients against central differences in float64, on random tokens, targets and
 * weights: every parameter and both weight inputs agree within 1e-5.
 */
export async function expectExactModelGradients(check: ModelGradientCheck): Promise<void> {
  const { config, batch, seqLen, scored } = check;
  const rows = scored?.length ?? batch * seqLen;
  const result = await checkGradients({
    seed: check.seed,
    samples: 6,
    build: (g, rng) => {
      const m = addModelLoss(g, {
        config,
        batch,
        seqLen,
        ...check.loss,
        ...(scored ? { scored: rows } : {}),
      });
      const feeds = paramFeeds(config, m.params, check.adjust && ((s, w) => check.adjust?.(s, w, rng)));
      feeds.push({ tensor: m.tokens, data: tokenIds(rng, 'tokens', batch * seqLen, config.vocabSize) });
      const targets = tokenIds(rng, 'targets', rows, config.vocabSize);
      check.targets?.(targets);
      feeds.push({ tensor: m.targets, data: targets });
      feeds.push({ tensor: m.weights, data: randomFloat64(rng.split('w'), rows) });
      feeds.push({ tensor: m.entropyWeights, data: randomFloat64(rng.split('ew'), rows, 0.5) });
      if (m.scored !== undefined && scored)
        feeds.push({ tensor: m.scored, data: BigInt64Array.from(scored, BigInt) });
      return { feeds, output: m.loss };
    },
  });
  expect(result.scale).toBeGreaterThan(1e-3);
  expect(result.maxError).toBeLessThan(1e-5);
  // Every parameter plus the two weight inputs.
  expect(Object.keys(result.errors).length).toBe(paramSpecs(config).length + 2);
}
