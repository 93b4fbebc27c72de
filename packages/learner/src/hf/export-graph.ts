/**
 * The exported decoder in transformers.js' KV-cache contract: inputs `input_ids`, `attention_mask`
 * (over past + new positions), `position_ids`, `past_key_values.N.key/value` [batch, kvHeads, past,
 * headDim]; outputs `logits` [batch, seq, vocab] and `present.N.key/value` (past + new). Batch and
 * sequence sizes are dynamic; weights are initializers.
 */

import { InvalidArgumentError } from '@mage-rl/core';
import { createGraph, type Graph } from '../graph/graph';
import { serializeGraph } from '../graph/serialize';
import type { Tensor } from '../graph/tensor';
import type { ModelConfig } from '../model/config';
import { paramSpecs } from '../model/params';
import { headWeight, MASK_NEG, ropeTables, transformerForward } from '../model/transformer';

export function buildExportGraph(config: ModelConfig, weights: ReadonlyMap<string, Float32Array>): Graph {
  const c = config;
  const g = createGraph();
  const params: Record<string, Tensor> = {};
  for (const s of paramSpecs(c)) {
    const w = weights.get(s.name);
    if (w === undefined) throw new InvalidArgumentError(`buildExportGraph: no weight '${s.name}'.`);
    params[s.name] = g.constant(w, s.shape);
  }
  const ids = g.input('input_ids', [-1, -1], 'int64');
  const am = g.input('attention_mask', [-1, -1], 'int64');
  const pos = g.input('position_ids', [-1, -1], 'int64');
  const past = [...Array(c.numLayers).keys()].map((i) => ({
    key: g.input(`past_key_values.${i}.key`, [-1, c.numKvHeads, -1, c.headDim]),
    value: g.input(`past_key_values.${i}.value`, [-1, c.numKvHeads, -1, c.headDim]),
  }));

  // Additive mask [B, 1, 1, T, S]: key j is visible to query t if j ≤ (S − T) + t and attention_mask[b, j] = 1.
  const i64 = (v: number) => g.constant([v], [], 'int64');
  const dim = (x: Tensor, axis: number) =>
    g.gather(g.raw('Shape', [x], { dtype: 'int64', shape: [x.shape.length] }), i64(axis));
  const S = dim(am, 1);
  const T = dim(ids, 1);
  const range = (from: Tensor, to: Tensor) =>
    g.raw('Range', [from, to, i64(1)], { dtype: 'int64', shape: [-1] });
  const qpos = g.reshape(range(g.sub(S, T), S), [-1, 1]);
  const kpos = g.reshape(range(i64(0), S), [1, -1]);
  const causal = g.raw('LessOrEqual', [kpos, qpos], { dtype: 'bool', shape: [-1, -1] });
  const visible = g.raw('And', [causal, g.reshape(g.cast(am, 'bool'), [0, 1, -1])], {
    dtype: 'bool',
    shape: [-1, -1, -1],
  });
  const additive = g.where(visible, g.scalar(0), g.scalar(MASK_NEG));
  const mask = g.raw('Unsqueeze', [additive, g.int64s([1, 2])], {
    dtype: 'float32',
    shape: [-1, 1, 1, -1, -1],
  });

  const rope = ropeTables(c, c.maxPositions);
  const table = (data: Float32Array | Float64Array) =>
    g.reshape(g.gather(g.constant(data, [c.maxPositions, c.headDim]), pos), [0, 0, 1, c.headDim]);
  const { hidden, present } = transformerForward(g, {
    config: c,
    params,
    tokens: ids,
    attention: { mask, cos: table(rope.cos), sin: table(rope.sin), past },
  });
  g.output('logits', g.matmul(hidden, g.transpose(headWeight(c, params), [1, 0])));
  present.forEach((p, i) => {
    g.output(`present.${i}.key`, p.key);
    g.output(`present.${i}.value`, p.value);
  });
  return g;
}

export function exportDimParams(config: ModelConfig): Record<string, Record<number, string>> {
  const dims: Record<string, Record<number, string>> = {
    input_ids: { 0: 'batch_size', 1: 'sequence_length' },
    attention_mask: { 0: 'batch_size', 1: 'total_sequence_length' },
    position_ids: { 0: 'batch_size', 1: 'sequence_length' },
    logits: { 0: 'batch_size', 1: 'sequence_length' },
  };
  for (let i = 0; i < config.numLayers; i++) {
    for (const kind of ['key', 'value']) {
      dims[`past_key_values.${i}.${kind}`] = { 0: 'batch_size', 2: 'past_sequence_length' };
      dims[`present.${i}.${kind}`] = { 0: 'batch_size', 2: 'total_sequence_length' };
    }
  }
  return dims;
}

export function serializeExportModel(
  config: ModelConfig,
  weights: ReadonlyMap<string, Float32Array>,
): Uint8Array {
  return serializeGraph(buildExportGraph(config, weights), {
    dimParams: exportDimParams(config),
    graphName: 'main_graph',
  });
}
