/** Parameter names (Hugging Face layout: linear weights are [out, in]), shapes and initialisation. */

import type { Rng } from '@mage-rl/core';
import type { ModelConfig } from './config';

export type ParamKind = 'embedding' | 'linear' | 'bias' | 'norm';

export interface ParamSpec {
  readonly name: string;
  readonly shape: readonly number[];
  readonly kind: ParamKind;
}

/** Named float32 tensors (weights, gradients, optimizer moments). */
export type ParamStore = Map<string, Float32Array>;

export const layerPrefix = (i: number): string => `model.layers.${i}`;

export function paramSpecs(c: ModelConfig): ParamSpec[] {
  const d = c.hiddenSize;
  const q = c.numHeads * c.headDim;
  const kv = c.numKvHeads * c.headDim;
  const specs: ParamSpec[] = [
    { name: 'model.embed_tokens.weight', shape: [c.vocabSize, d], kind: 'embedding' },
  ];
  for (let i = 0; i < c.numLayers; i++) {
    const p = layerPrefix(i);
    specs.push({ name: `${p}.input_layernorm.weight`, shape: [d], kind: 'norm' });
    specs.push({ name: `${p}.self_attn.q_proj.weight`, shape: [q, d], kind: 'linear' });
    specs.push({ name: `${p}.self_attn.k_proj.weight`, shape: [kv, d], kind: 'linear' });
    specs.push({ name: `${p}.self_attn.v_proj.weight`, shape: [kv, d], kind: 'linear' });
    if (c.architecture === 'qwen2') {
      specs.push({ name: `${p}.self_attn.q_proj.bias`, shape: [q], kind: 'bias' });
      specs.push({ name: `${p}.self_attn.k_proj.bias`, shape: [kv], kind: 'bias' });
      specs.push({ name: `${p}.self_attn.v_proj.bias`, shape: [kv], kind: 'bias' });
    }
    if (c.architecture === 'qwen3') {
      specs.push({ name: `${p}.self_attn.q_norm.weight`, shape: [c.headDim], kind: 'norm' });
      specs.push({ name: `${p}.self_attn.k_norm.weight`, shape: [c.headDim], kind: 'norm' });
    }
    specs.push({ name: `${p}.self_attn.o_proj.weight`, shape: [d, q], kind: 'linear' });
    specs.push({ name: `${p}.post_attention_layernorm.weight`, shape: [d], kind: 'norm' });
    specs.push({ name: `${p}.mlp.gate_proj.weight`, shape: [c.intermediateSize, d], kind: 'linear' });
    specs.push({ name: `${p}.mlp.up_proj.weight`, shape: [c.intermediateSize, d], kind: 'linear' });
    specs.push({ name: `${p}.mlp.down_proj.weight`, shape: [d, c.intermediateSize], kind: 'linear' });
  }
  specs.push({ name: 'model.norm.weight', shape: [d], kind: 'norm' });
  if (!c.tieWordEmbeddings) specs.push({ name: 'lm_head.weight', shape: [c.vocabSize, d], kind: 'linear' });
  return specs;
}

export function countParams(c: ModelConfig): number {
  return paramSpecs(c).reduce((n, s) => n + s.shape.reduce((p, x) => p * x, 1), 0);
}

/** Standard normal draws (Box–Muller) from the injected stream. */
export function fillNormal(rng: Rng, out: Float32Array | Float64Array, std: number): void {
  for (let i = 0; i < out.length; i += 2) {
    const u = 1 - rng.next();
    const v = rng.next();
    const r = Math.sqrt(-2 * Math.log(u)) * std;
    out[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < out.length) out[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
}

/** Random initial weights: N(0, std) for matrices (GPT-2 style), ones for norms, zeros for biases. */
export function initParams(c: ModelConfig, rng: Rng, options: { std?: number } = {}): ParamStore {
  const std = options.std ?? 0.02;
  const store: ParamStore = new Map();
  for (const spec of paramSpecs(c)) {
    const n = spec.shape.reduce((p, x) => p * x, 1);
    const data = new Float32Array(n);
    if (spec.kind === 'norm') data.fill(1);
    else if (spec.kind !== 'bias') fillNormal(rng.split(spec.name), data, std);
    store.set(spec.name, data);
  }
  return store;
}
