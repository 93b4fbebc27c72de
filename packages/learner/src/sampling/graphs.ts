/**
 * Inference graphs. Prefill runs right-padded prompts through the model and returns every position's
 * keys/values plus the next-token log-probs at each row's last prompt token. Decode takes one token per
 * row, attends over a fixed-capacity KV buffer owned by JS (masked per row) and returns only the new
 * token's keys/values, so the Node binding never copies the whole cache.
 */

import { createGraph, type Graph } from '../graph/graph';
import type { Tensor } from '../graph/tensor';
import { addLoraInputs, type LoraOptions } from '../lora/lora';
import type { ModelConfig } from '../model/config';
import { paramSpecs } from '../model/params';
import { defaultAttentionBlocks } from '../model/training-graph';
import {
  causalMask,
  headWeight,
  type LinearHook,
  ropeTables,
  streamedProduct,
  transformerForward,
} from '../model/transformer';

export function addParamInputs(g: Graph, config: ModelConfig): Record<string, Tensor> {
  const params: Record<string, Tensor> = {};
  for (const spec of paramSpecs(config)) params[spec.name] = g.input(spec.name, spec.shape, g.float);
  return params;
}

export interface InferenceGraphOptions {
  readonly config: ModelConfig;
  readonly batch: number;
  /** LoRA adapters as extra inputs. */
  readonly lora?: LoraOptions;
}

function paramsWithExtras(
  g: Graph,
  options: InferenceGraphOptions,
): { params: Record<string, Tensor>; hook?: LinearHook } {
  const params = addParamInputs(g, options.config);
  if (options.lora === undefined) return { params };
  const lora = addLoraInputs(g, options.config, options.lora);
  return { params: { ...params, ...lora.params }, hook: lora.hook };
}

/** Log-softmax of the head at `hidden` [rows, hidden]; a decode step's few rows go through `streamedProduct`. */
function logprobsOf(
  g: Graph,
  config: ModelConfig,
  params: Record<string, Tensor>,
  hidden: Tensor,
  fewRows = false,
): Tensor {
  const w = headWeight(config, params);
  return g.logSoftmax(fewRows ? streamedProduct(g, hidden, w) : g.gemm(hidden, w, { transB: true }), -1);
}

/**
 * A causal pass over `input_ids` [B, T] from position 0, with the LM head applied only at the flat
 * positions of the int64 input `index` [size] (a full [B·T, vocab] block is large for big vocabularies):
 * their log-softmax rows and each layer's keys/values.
 */
function causalPass(
  g: Graph,
  options: InferenceGraphOptions & { readonly seqLen: number },
  index: { readonly name: string; readonly size: number },
) {
  const { config: c, batch: B, seqLen: T } = options;
  const { params, hook } = paramsWithExtras(g, options);
  const tokens = g.input('input_ids', [B, T], 'int64');
  const at = g.input(index.name, [index.size], 'int64');
  const rope = ropeTables(c, T);
  const { hidden, kv } = transformerForward(g, {
    config: c,
    params,
    tokens,
    attention: {
      mask: g.constant(causalMask(T), [T, T]),
      cos: g.constant(rope.cos, [T, 1, c.headDim]),
      sin: g.constant(rope.sin, [T, 1, c.headDim]),
      causalBlocks: defaultAttentionBlocks(T),
    },
    ...(hook === undefined ? {} : { linearHook: hook }),
  });
  const rows = g.gather(g.reshape(hidden, [B * T, c.hiddenSize]), at);
  return { logprobs: logprobsOf(g, c, params, rows), kv };
}

export function buildPrefillGraph(options: InferenceGraphOptions & { readonly seqLen: number }): Graph {
  const g = createGraph();
  const { logprobs, kv } = causalPass(g, options, { name: 'last_index', size: options.batch });
  g.output('logprobs', logprobs);
  kv.forEach((layer, i) => {
    g.output(`present.${i}.key`, layer.key);
    g.output(`present.${i}.value`, layer.value);
  });
  return g;
}

/**
 * Full next-token distributions (serve's `top_logprobs`): log-softmax rows [R, vocab] at the flat
 * positions `rows` [R] of a causal pass over `input_ids` [B, T], without the cache outputs.
 */
export function buildDistributionGraph(
  options: InferenceGraphOptions & { readonly seqLen: number; readonly rows: number },
): Graph {
  const g = createGraph();
  g.output('logprobs', causalPass(g, options, { name: 'rows', size: options.rows }).logprobs);
  return g;
}

/** Rows of a decode graph's RoPE tables: positions fed to it are below this (`positions` ≤ it − 1). */
export const decodeTableRows = (c: ModelConfig, capacity: number, seqLen: number): number =>
  Math.min(c.maxPositions, capacity + seqLen);

/**
 * Decode over a KV buffer of `capacity` positions: `seqLen` new tokens per row (default 1: one decode
 * step; more: the new part of a prompt whose prefix is already in the buffer), their positions (below
 * `decodeTableRows`), and an additive mask [B, 1, 1, seqLen, capacity + seqLen] over the buffer and the
 * new tokens. Returns the log-probs at `last_index` (flat index into B·seqLen; with seqLen 1 every row's
 * one token) and the new tokens' keys/values `new.<layer>.key|value` [B, KV, seqLen, hd]. A decode step
 * multiplies large weights through `streamedProduct`.
 */
export function buildDecodeGraph(
  options: InferenceGraphOptions & {
    readonly capacity: number;
    readonly seqLen?: number;
    /**
     * Rows of the KV buffer (default `batch`). When larger, the graph takes an int64 input `rows`
     * [batch] and runs the buffer's rows `rows[b]` only (a decode step after most rows finished).
     */
    readonly bufferRows?: number;
  },
): Graph {
  const { config: c, batch: B, capacity: S } = options;
  const T = options.seqLen ?? 1;
  const buffer = options.bufferRows ?? B;
  const g = createGraph();
  const { params, hook } = paramsWithExtras(g, options);
  const tokens = g.input('input_ids', [B, T], 'int64');
  const positions = g.input('positions', [B, T], 'int64');
  const mask = g.input('mask', [B, 1, 1, T, S + T]);
  const rows = buffer === B ? undefined : g.input('rows', [B], 'int64');
  const pastInput = (name: string) => {
    const t = g.input(name, [buffer, c.numKvHeads, S, c.headDim]);
    return rows === undefined ? t : g.gather(t, rows);
  };
  const past = [...Array(c.numLayers).keys()].map((i) => ({
    key: pastInput(`past.${i}.key`),
    value: pastInput(`past.${i}.value`),
  }));
  // Positions stay below S + T (the buffer's and the new tokens'): a table of maxPositions rows
  // (40,960 for Qwen3, 42 MB) made every decode session slow to build and large to hold.
  const tableRows = decodeTableRows(c, S, T);
  const rope = ropeTables(c, tableRows);
  const table = (data: Float32Array | Float64Array) =>
    g.reshape(g.gather(g.constant(data, [tableRows, c.headDim]), positions), [B, T, 1, c.headDim]);
  const { hidden, kv } = transformerForward(g, {
    config: c,
    params,
    tokens,
    attention: { mask, cos: table(rope.cos), sin: table(rope.sin), past },
    ...(hook === undefined ? {} : { linearHook: hook }),
    fewRows: T === 1,
  });
  const flat = g.reshape(hidden, [B * T, c.hiddenSize]);
  const last = T === 1 ? flat : g.gather(flat, g.input('last_index', [B], 'int64'));
  g.output('logprobs', logprobsOf(g, c, params, last, T === 1));
  kv.forEach((layer, i) => {
    g.output(`new.${i}.key`, layer.key);
    g.output(`new.${i}.value`, layer.value);
  });
  return g;
}
