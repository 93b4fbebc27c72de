/**
 * The `qwen3` bench's model and inputs: Qwen3-0.6B's shape (28 layers, d_model 1024, 16 query / 8 KV
 * heads of 128, SwiGLU 3072, vocabulary 151,936, tied embeddings, RoPE θ 1e6, RMSNorm ε 1e-6) with
 * random bf16-rounded weights, written once into a cache directory, and the token rows every side of
 * the bench reads from `inputs.json` in that directory.
 */

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng } from '@mage-rl/core';
import { defineModelConfig, type ModelConfig } from '@mage-rl/learner';
import { QWEN3_VOCAB } from '../vocab/model';

/** Layers (28; `MAGE_BENCH_QWEN3_LAYERS` makes a shallower model for a quick check of the bench). */
export const LAYERS = Number(process.env.MAGE_BENCH_QWEN3_LAYERS ?? 28);

export function qwen3Config(ids: { eos: number; bos: number }): ModelConfig {
  return defineModelConfig({
    architecture: 'qwen3',
    vocabSize: QWEN3_VOCAB,
    hiddenSize: 1024,
    numLayers: LAYERS,
    numHeads: 16,
    numKvHeads: 8,
    headDim: 128,
    intermediateSize: 3072,
    rmsNormEps: 1e-6,
    ropeTheta: 1_000_000,
    maxPositions: 40_960,
    tieWordEmbeddings: true,
    eosTokenId: ids.eos,
    bosTokenId: ids.bos,
  });
}

/** Where the model is cached (`MAGE_BENCH_QWEN3_DIR`, else under the OS temporary directory). */
export const modelDir = (): string =>
  process.env.MAGE_BENCH_QWEN3_DIR ?? join(tmpdir(), `mage-bench-qwen3-0.6b-L${LAYERS}-v1`);

/** Written last: a directory without it is incomplete and is written again. */
export const COMPLETE_FILE = 'bench-complete.json';

/** Update rows: `rows` × (`prompt` + `response`) random ids; decode prompts: `batch` × `promptLen`. */
export interface BenchInputs {
  readonly rows: { readonly prompt: number[]; readonly response: number[] }[];
  readonly decode: { readonly prompts: number[][]; readonly promptLen: number; readonly newTokens: number };
  readonly lora: { readonly rank: number; readonly alpha: number; readonly targets: readonly string[] };
  readonly optimizer: { readonly lr: number; readonly weightDecay: number; readonly maxGradNorm: number };
  readonly entropyCoef: number;
}

export const ROWS = 16;
export const PROMPT = 64;
export const RESPONSE = 64;
export const DECODE_PROMPT = 32;
export const DECODE_NEW = Number(process.env.MAGE_BENCH_QWEN3_NEW_TOKENS ?? 32);
/** Largest decode batch; batch 1 decodes the first of these prompts. */
export const DECODE_BATCH = 16;

export function benchInputs(vocab: number): BenchInputs {
  const rng = createRng('qwen3-bench');
  const ids = (n: number) => Array.from({ length: n }, () => rng.int(vocab));
  return {
    rows: Array.from({ length: ROWS }, () => ({ prompt: ids(PROMPT), response: ids(RESPONSE) })),
    decode: {
      prompts: Array.from({ length: DECODE_BATCH }, () => ids(DECODE_PROMPT)),
      promptLen: DECODE_PROMPT,
      newTokens: DECODE_NEW,
    },
    // What `mage train` gives a model of this size (the learner's DEFAULT_LORA) and its PPO defaults.
    lora: { rank: 8, alpha: 16, targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] },
    optimizer: { lr: 1e-5, weightDecay: 0.01, maxGradNorm: 1 },
    entropyCoef: 0.001,
  };
}
