/** Hugging Face `config.json` ⇄ `ModelConfig` for the Llama, Qwen2 and Qwen3 families. */

import { CheckpointError } from '@mage-rl/core';
import { type Architecture, defineModelConfig, type ModelConfig } from '../model/config';

const CLASS: Readonly<Record<Architecture, string>> = {
  llama: 'LlamaForCausalLM',
  qwen2: 'Qwen2ForCausalLM',
  qwen3: 'Qwen3ForCausalLM',
};

function num(raw: Record<string, unknown>, key: string, fallback?: number): number {
  const v = raw[key] ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw new CheckpointError(`config.json: '${key}' must be a number, got ${JSON.stringify(v)}.`, {
      code: 'MODEL_FORMAT',
      context: { key },
    });
  }
  return v;
}

const firstId = (v: unknown): number | undefined =>
  typeof v === 'number' ? v : Array.isArray(v) && typeof v[0] === 'number' ? v[0] : undefined;

export function fromHfConfig(raw: Record<string, unknown>): ModelConfig {
  const type = raw.model_type;
  if (type !== 'llama' && type !== 'qwen2' && type !== 'qwen3') {
    throw new CheckpointError(
      `config.json: model_type ${JSON.stringify(type)} is not one of llama, qwen2, qwen3.`,
      {
        code: 'MODEL_FORMAT',
      },
    );
  }
  if (raw.hidden_act !== undefined && raw.hidden_act !== 'silu') {
    throw new CheckpointError(
      `config.json: hidden_act '${String(raw.hidden_act)}' is not supported (silu only).`,
      {
        code: 'MODEL_FORMAT',
      },
    );
  }
  if (raw.rope_scaling !== undefined && raw.rope_scaling !== null) {
    throw new CheckpointError('config.json: rope_scaling is not supported.', { code: 'MODEL_FORMAT' });
  }
  if (type === 'llama' && (raw.attention_bias === true || raw.mlp_bias === true)) {
    throw new CheckpointError('config.json: Llama attention/MLP biases are not supported.', {
      code: 'MODEL_FORMAT',
    });
  }
  const heads = num(raw, 'num_attention_heads');
  const hidden = num(raw, 'hidden_size');
  const bos = firstId(raw.bos_token_id);
  const eos = firstId(raw.eos_token_id);
  return defineModelConfig({
    architecture: type,
    vocabSize: num(raw, 'vocab_size'),
    hiddenSize: hidden,
    numLayers: num(raw, 'num_hidden_layers'),
    numHeads: heads,
    numKvHeads: num(raw, 'num_key_value_heads', heads),
    headDim: num(raw, 'head_dim', Math.floor(hidden / heads)),
    intermediateSize: num(raw, 'intermediate_size'),
    rmsNormEps: num(raw, 'rms_norm_eps', 1e-6),
    ropeTheta: num(raw, 'rope_theta', 10000),
    tieWordEmbeddings: raw.tie_word_embeddings === true,
    maxPositions: num(raw, 'max_position_embeddings', 2048),
    ...(bos === undefined ? {} : { bosTokenId: bos }),
    ...(eos === undefined ? {} : { eosTokenId: eos }),
  });
}

export function toHfConfig(c: ModelConfig): Record<string, unknown> {
  return {
    architectures: [CLASS[c.architecture]],
    model_type: c.architecture,
    vocab_size: c.vocabSize,
    hidden_size: c.hiddenSize,
    intermediate_size: c.intermediateSize,
    num_hidden_layers: c.numLayers,
    num_attention_heads: c.numHeads,
    num_key_value_heads: c.numKvHeads,
    head_dim: c.headDim,
    hidden_act: 'silu',
    rms_norm_eps: c.rmsNormEps,
    rope_theta: c.ropeTheta,
    rope_scaling: null,
    tie_word_embeddings: c.tieWordEmbeddings,
    max_position_embeddings: c.maxPositions,
    ...(c.architecture === 'llama' ? { attention_bias: false, mlp_bias: false } : {}),
    ...(c.bosTokenId === undefined ? {} : { bos_token_id: c.bosTokenId }),
    ...(c.eosTokenId === undefined ? {} : { eos_token_id: c.eosTokenId }),
    torch_dtype: 'float32',
    use_cache: true,
  };
}
