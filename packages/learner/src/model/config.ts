/** Model configuration of the decoder-only architectures (Llama, Qwen2, Qwen3) in Hugging Face terms. */

import { ConfigError } from '@mage-rl/core';

export type Architecture = 'llama' | 'qwen2' | 'qwen3';

export interface ModelConfig {
  readonly architecture: Architecture;
  readonly vocabSize: number;
  readonly hiddenSize: number;
  readonly numLayers: number;
  readonly numHeads: number;
  readonly numKvHeads: number;
  readonly headDim: number;
  readonly intermediateSize: number;
  readonly rmsNormEps: number;
  readonly ropeTheta: number;
  readonly tieWordEmbeddings: boolean;
  readonly maxPositions: number;
  readonly bosTokenId?: number;
  readonly eosTokenId?: number;
}

const POSITIVE_INTS = [
  'vocabSize',
  'hiddenSize',
  'numLayers',
  'numHeads',
  'numKvHeads',
  'headDim',
  'intermediateSize',
  'maxPositions',
] as const;

export type ModelConfigInput = Partial<ModelConfig> &
  Pick<ModelConfig, 'vocabSize' | 'hiddenSize' | 'numLayers' | 'numHeads' | 'intermediateSize'>;

/** Fills defaults (Llama, MHA, head_dim = hidden/heads, eps 1e-6, θ = 10000, tied head) and validates. */
export function defineModelConfig(input: ModelConfigInput): ModelConfig {
  const filled = {
    architecture: 'llama' as const,
    numKvHeads: input.numHeads,
    headDim: Math.floor(input.hiddenSize / input.numHeads),
    rmsNormEps: 1e-6,
    ropeTheta: 10000,
    tieWordEmbeddings: true,
    maxPositions: 2048,
    ...input,
  };
  const c = filled as ModelConfig;
  if (!['llama', 'qwen2', 'qwen3'].includes(c.architecture)) {
    throw new ConfigError(`Unknown architecture '${c.architecture}'; known: llama, qwen2, qwen3.`, {
      path: 'architecture',
    });
  }
  for (const key of POSITIVE_INTS) {
    if (!Number.isInteger(c[key]) || c[key] <= 0) {
      throw new ConfigError(`Model config ${key} must be a positive integer, got ${c[key]}.`, { path: key });
    }
  }
  for (const key of ['rmsNormEps', 'ropeTheta'] as const) {
    if (!(c[key] > 0) || !Number.isFinite(c[key])) {
      throw new ConfigError(`Model config ${key} must be a positive number, got ${c[key]}.`, { path: key });
    }
  }
  if (c.numHeads % c.numKvHeads !== 0) {
    throw new ConfigError(`numHeads (${c.numHeads}) must be a multiple of numKvHeads (${c.numKvHeads}).`, {
      path: 'numKvHeads',
    });
  }
  if (c.headDim % 2 !== 0) throw new ConfigError('headDim must be even (RoPE).', { path: 'headDim' });
  return c;
}
