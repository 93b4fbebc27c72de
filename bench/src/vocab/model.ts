/** The `vocab` bench's model: Qwen3-shaped, d_model 64, 2 layers, tied embeddings, bf16-rounded weights. */

import { defineModelConfig, type ModelConfig } from '@mage-rl/learner';

/** Qwen3's vocabulary size. */
export const QWEN3_VOCAB = 151_936;

export function benchModelConfig(vocabSize: number, ids: { eos: number; bos?: number }): ModelConfig {
  return defineModelConfig({
    architecture: 'qwen3',
    vocabSize,
    hiddenSize: 64,
    numLayers: 2,
    numHeads: 4,
    numKvHeads: 2,
    headDim: 16,
    intermediateSize: 192,
    maxPositions: 1024,
    tieWordEmbeddings: true,
    eosTokenId: ids.eos,
    ...(ids.bos === undefined ? {} : { bosTokenId: ids.bos }),
  });
}

/** Rounds to bfloat16 in place (an imported bf16 checkpoint holds only bf16 values). */
export function toBf16(x: Float32Array): Float32Array {
  const u = new Uint32Array(x.buffer, x.byteOffset, x.length);
  for (let i = 0; i < u.length; i++) {
    const v = u[i] as number;
    u[i] = ((v + 0x7fff + ((v >>> 16) & 1)) >>> 16) << 16;
  }
  return x;
}
