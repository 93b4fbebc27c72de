/**
 * The decoder stack of Llama / Qwen2 / Qwen3 written with the graph builder. Activations are
 * [batch, time, features]; reshapes use ONNX 0/−1 dimensions so the same code also serves exported
 * models with dynamic batch and sequence sizes.
 */

import { InvalidArgumentError } from '@mage-rl/core';
import type { Graph } from '../graph/graph';
import { dimAt, sizeOf, type Tensor } from '../graph/tensor';
import { zip } from '../util/arrays';
import type { ModelConfig } from './config';
import { layerPrefix } from './params';

/** Rewrites a linear layer's output (LoRA adapters plug in here). */
export type LinearHook = (name: string, x: Tensor, y: Tensor) => Tensor;

export interface AttentionContext {
  /**
   * Additive mask broadcastable to [batch, kvHeads, groups, time, keys] where keys = past + time
   * (0 = attend, a large negative number = blocked).
   */
  readonly mask: Tensor;
  /** RoPE tables broadcastable to [batch, time, heads, headDim]. */
  readonly cos: Tensor;
  readonly sin: Tensor;
  /** Per layer: cached keys and values [batch, kvHeads, past, headDim]. */
  readonly past?: readonly { readonly key: Tensor; readonly value: Tensor }[];
  /**
   * `mask` is the plain causal [time, time] mask (no past, no padding): attention may then run in this
   * many query blocks, each over the keys up to its last query, skipping the blocks above the diagonal
   * (default 1 = one block).
   */
  readonly causalBlocks?: number;
}

export interface ForwardOptions {
  readonly config: ModelConfig;
  readonly params: Readonly<Record<string, Tensor>>;
  /** Token ids [batch, time] (int64). */
  readonly tokens: Tensor;
  readonly attention: AttentionContext;
  readonly linearHook?: LinearHook;
  /**
   * The run has few rows (a decode step): linear layers with large weights multiply through
   * `streamedProduct` (default false).
   */
  readonly fewRows?: boolean;
}

export interface ForwardResult {
  /** Final-normed hidden states [batch, time, hidden]. */
  readonly hidden: Tensor;
  /** Per layer: this call's keys and values after RoPE [batch, kvHeads, time, headDim]. */
  readonly kv: { readonly key: Tensor; readonly value: Tensor }[];
  /** Per layer: past + new keys and values (equal to `kv` without a past). */
  readonly present: { readonly key: Tensor; readonly value: Tensor }[];
}

export const MASK_NEG = -1e9;

/**
 * RMSNorm with a hand-written VJP (six full-size passes backward instead of about a dozen):
 * y = x·r·w with r = 1/√(mean(x²) + ε); dx = r·(dy·w) − x·r³·mean(dy·w·x); dw = Σ dy·x·r.
 */
export function rmsNorm(g: Graph, x: Tensor, weight: Tensor, eps: number): Tensor {
  let r: Tensor | undefined;
  let xr: Tensor | undefined;
  const [y] = g.custom({
    inputs: [x, weight],
    forward: () => {
      const ms = g.reduceMean(g.mul(x, x), [-1], true);
      r = g.reciprocal(g.sqrt(g.add(ms, g.scalar(eps, x.dtype))));
      xr = g.mul(x, r);
      return [g.mul(xr, weight)];
    },
    vjp: (gg, [dy]) => {
      const d = dy as Tensor;
      const rr = r as Tensor;
      const gw = gg.mul(d, weight);
      const m = gg.reduceMean(gg.mul(gw, x), [-1], true);
      const c = gg.mul(m, gg.mul(rr, gg.mul(rr, rr)));
      const dx = gg.sub(gg.mul(gw, rr), gg.mul(x, c));
      const lead = [...Array(x.shape.length - 1).keys()];
      const dw = gg.reshape(gg.reduceSum(gg.mul(d, xr as Tensor), lead, false), weight.shape);
      return [dx, dw];
    },
  });
  return y as Tensor;
}

/** SwiGLU silu(gate)·up with a hand-written VJP: d gate = d silu·(σ + silu·(1 − σ)). */
export function swiglu(g: Graph, gate: Tensor, up: Tensor): Tensor {
  let sig: Tensor | undefined;
  let silu: Tensor | undefined;
  const [y] = g.custom({
    inputs: [gate, up],
    forward: () => {
      sig = g.sigmoid(gate);
      silu = g.mul(gate, sig);
      return [g.mul(silu, up)];
    },
    vjp: (gg, [dy]) => {
      const d = dy as Tensor;
      const s = sig as Tensor;
      const si = silu as Tensor;
      const dUp = gg.mul(d, si);
      const dSilu = gg.mul(d, up);
      const deriv = gg.add(s, gg.mul(si, gg.sub(gg.scalar(1, s.dtype), s)));
      return [gg.mul(dSilu, deriv), dUp];
    },
  });
  return y as Tensor;
}

function rotateHalf(g: Graph, x: Tensor): Tensor {
  const hd = dimAt(x.shape, -1);
  const x1 = g.slice(x, -1, 0, hd / 2);
  const x2 = g.slice(x, -1, hd / 2, hd);
  return g.concat([g.neg(x2), x1], -1);
}

/** HF's `x·cos + rotate_half(x)·sin` (kept for reference and tests; the model uses `ropeSwapped`). */
export function applyRope(g: Graph, x: Tensor, cos: Tensor, sin: Tensor): Tensor {
  return g.add(g.mul(x, cos), g.mul(rotateHalf(g, x), sin));
}

/** The two halves of the last axis exchanged (its own inverse and transpose). */
function swapHalves(g: Graph, x: Tensor): Tensor {
  const hd = dimAt(x.shape, -1);
  return g.concat([g.slice(x, -1, hd / 2, hd), g.slice(x, -1, 0, hd / 2)], -1);
}

/**
 * RoPE as `x·cos + swap(x)·sinSigned` where `sinSigned` is sin with its first half negated
 * (rotate_half(x) = swap(x)·[−1…, +1…]), with a hand-written VJP: dx = dy·cos + swap(dy·sinSigned).
 * The backward pass needs neither Pad nor a three-way Sum, and no negation of full tensors.
 */
export function ropeSwapped(g: Graph, x: Tensor, cos: Tensor, sinSigned: Tensor): Tensor {
  const [y] = g.custom({
    inputs: [x],
    forward: () => [g.add(g.mul(x, cos), g.mul(swapHalves(g, x), sinSigned))],
    vjp: (gg, [dy]) => {
      const d = dy as Tensor;
      return [gg.add(gg.mul(d, cos), swapHalves(gg, gg.mul(d, sinSigned)))];
    },
  });
  return y as Tensor;
}

/** [−1 × headDim/2, +1 × headDim/2]: turns a sin table into the `sinSigned` of `ropeSwapped`. */
function ropeSigns(g: Graph, hd: number): Tensor {
  return g.constant(
    Array.from({ length: hd }, (_, i) => (i < hd / 2 ? -1 : 1)),
    [hd],
  );
}

/** cos/sin tables [positions, headDim] in HF's layout (frequencies repeated over both halves). */
export function ropeTables(config: ModelConfig, positions: number, dtype: 'float32' | 'float64' = 'float32') {
  const hd = config.headDim;
  const half = hd / 2;
  const cos = dtype === 'float32' ? new Float32Array(positions * hd) : new Float64Array(positions * hd);
  const sin = dtype === 'float32' ? new Float32Array(positions * hd) : new Float64Array(positions * hd);
  for (let p = 0; p < positions; p++) {
    for (let i = 0; i < half; i++) {
      // Same float32 rounding as the reference implementations: inv_freq in float32, then p·inv_freq.
      const invFreq = Math.fround(1 / config.ropeTheta ** ((2 * i) / hd));
      const angle = Math.fround(p * invFreq);
      const c = Math.cos(angle);
      const s = Math.sin(angle);
      cos[p * hd + i] = c;
      cos[p * hd + i + half] = c;
      sin[p * hd + i] = s;
      sin[p * hd + i + half] = s;
    }
  }
  return { cos, sin };
}

/** Causal additive mask [time, time] (row = query, column = key). */
export function causalMask(
  time: number,
  dtype: 'float32' | 'float64' = 'float32',
): Float32Array | Float64Array {
  const m = dtype === 'float32' ? new Float32Array(time * time) : new Float64Array(time * time);
  for (let i = 0; i < time; i++) for (let j = i + 1; j < time; j++) m[i * time + j] = MASK_NEG;
  return m;
}

function param(params: Readonly<Record<string, Tensor>>, name: string): Tensor {
  const t = params[name];
  if (t === undefined) throw new InvalidArgumentError(`The graph has no parameter '${name}'.`);
  return t;
}

const isStatic = (t: Tensor) => t.shape.every((d) => d > 0);

/**
 * Weights of at least this many elements (4 MiB of float32) go through `streamedProduct` in runs of few
 * rows: a 16-row product with a 1024 × 1024 weight took 0.45 instead of 0.65 ms; at 1024 × 512 and below
 * the two forms were even, and the transposes are extra nodes.
 */
export const STREAMED_WEIGHT_ELEMENTS = 2 ** 20;

/** Rows of one product in `streamedProduct`. */
export const STREAMED_PRODUCT_ROWS = 16;

/**
 * x·Wᵀ for x [..., K] and a weight W [N, K], computed as (W·xᵀ)ᵀ in products of at most
 * `STREAMED_PRODUCT_ROWS` rows when x has few rows (at least 2, and a multiple of 16 above 16) and W is
 * large; otherwise as x·Wᵀ. Why: onnxruntime's x·Wᵀ with W a graph input (the weights are fed, not
 * initializers) repacks all of W into transposed panels on every run, which a run of 16 rows cannot
 * amortise — on a Qwen3-0.6B-shaped decode step the products took ~1.4× the time of the same products
 * on pre-packed weights. In W·xᵀ the weight is the left operand, which the kernel reads in place, and
 * only the few rows of x are packed. The kernel then sums over K in the same order for 2 to 16 rows,
 * so a row's numbers do not depend on its batch (at 32 rows in one product they would); a batch of 32 or
 * 64 rows runs as 2 or 4 products of 16. One row stays x·Wᵀ (a matrix-vector kernel either way).
 */
export function streamedProduct(g: Graph, x: Tensor, w: Tensor): Tensor {
  const [N, K] = w.shape as [number, number];
  const outer = x.shape.slice(0, -1);
  const rows = sizeOf(outer);
  const group = Math.min(rows, STREAMED_PRODUCT_ROWS);
  const streamed = N * K >= STREAMED_WEIGHT_ELEMENTS && rows >= 2 && rows % group === 0;
  if (!streamed) return g.matmul(x, g.transpose(w, [1, 0]));
  const products = rows / group;
  const xt = g.transpose(g.reshape(x, [products, group, K]), [0, 2, 1]);
  return g.reshape(g.transpose(g.matmul(w, xt), [0, 2, 1]), [...outer, N]);
}

export function linear(
  g: Graph,
  params: Readonly<Record<string, Tensor>>,
  name: string,
  x: Tensor,
  hook?: LinearHook,
  fewRows = false,
): Tensor {
  const w = param(params, `${name}.weight`);
  let y = fewRows ? streamedProduct(g, x, w) : g.matmul(x, g.transpose(w, [1, 0]));
  const bias = params[`${name}.bias`];
  if (bias !== undefined) y = g.add(y, bias);
  return hook === undefined ? y : hook(name, x, y);
}

export function transformerForward(g: Graph, options: ForwardOptions): ForwardResult {
  const { config: c, params, tokens, attention } = options;
  const hook = options.linearHook;
  const few = options.fewRows ?? false;
  const H = c.numHeads;
  const KV = c.numKvHeads;
  const G = H / KV;
  const hd = c.headDim;
  // The attention scale 1/√hd is folded into the query's RoPE tables (no pass over q).
  const scale = g.scalar(1 / Math.sqrt(hd), g.float);
  const sinSigned = g.mul(attention.sin, ropeSigns(g, hd));
  const cosQ = g.mul(attention.cos, scale);
  const sinQ = g.mul(sinSigned, scale);
  let x = g.gather(param(params, 'model.embed_tokens.weight'), tokens);
  const kv: ForwardResult['kv'] = [];
  const present: ForwardResult['present'] = [];
  for (let i = 0; i < c.numLayers; i++) {
    const p = layerPrefix(i);
    const h = rmsNorm(g, x, param(params, `${p}.input_layernorm.weight`), c.rmsNormEps);
    let q = g.reshape(linear(g, params, `${p}.self_attn.q_proj`, h, hook, few), [0, 0, H, hd]);
    let k = g.reshape(linear(g, params, `${p}.self_attn.k_proj`, h, hook, few), [0, 0, KV, hd]);
    const v = g.reshape(linear(g, params, `${p}.self_attn.v_proj`, h, hook, few), [0, 0, KV, hd]);
    if (c.architecture === 'qwen3') {
      q = rmsNorm(g, q, param(params, `${p}.self_attn.q_norm.weight`), c.rmsNormEps);
      k = rmsNorm(g, k, param(params, `${p}.self_attn.k_norm.weight`), c.rmsNormEps);
    }
    q = ropeSwapped(g, q, cosQ, sinQ);
    k = ropeSwapped(g, k, attention.cos, sinSigned);
    const kNew = g.transpose(k, [0, 2, 1, 3]);
    const vNew = g.transpose(v, [0, 2, 1, 3]);
    kv.push({ key: kNew, value: vNew });
    const past = attention.past?.[i];
    const keys = past === undefined ? kNew : g.concat([past.key, kNew], 2);
    const values = past === undefined ? vNew : g.concat([past.value, vNew], 2);
    present.push({ key: keys, value: values });
    // Query heads of one kv head share its keys: [B, T, KV·G, hd] → [B, KV, G, T, hd] (GQA without copies).
    const q5 = g.transpose(g.reshape(q, [0, 0, KV, G, hd]), [0, 2, 3, 1, 4]);
    const merged =
      past === undefined && (attention.causalBlocks ?? 1) > 1 && isStatic(q5)
        ? attendCausalBlocks(g, q5, keys, values, attention.mask, attention.causalBlocks ?? 1)
        : attend(g, q5, keys, values, attention.mask);
    x = g.add(x, linear(g, params, `${p}.self_attn.o_proj`, merged, hook, few));
    const h2 = rmsNorm(g, x, param(params, `${p}.post_attention_layernorm.weight`), c.rmsNormEps);
    const gate = linear(g, params, `${p}.mlp.gate_proj`, h2, hook, few);
    const up = linear(g, params, `${p}.mlp.up_proj`, h2, hook, few);
    const act = swiglu(g, gate, up);
    x = g.add(x, linear(g, params, `${p}.mlp.down_proj`, act, hook, few));
  }
  const hidden = rmsNorm(g, x, param(params, 'model.norm.weight'), c.rmsNormEps);
  return { hidden, kv, present };
}

/**
 * softmax(scores + mask)·V for scores [B, KV, G, T, S] and values [B, KV, S, hd]; returns
 * [B, KV, G·T, hd]. Hand-written VJP: rowsum(dP ⊙ P) = rowsum(dCtx ⊙ ctx) (as in FlashAttention), so
 * the backward pass makes two passes over the [T × S] probabilities instead of four.
 */
function softmaxValues(g: Graph, scores: Tensor, values: Tensor, mask: Tensor): Tensor {
  const [B, KV, G, T, S] = scores.shape as [number, number, number, number, number];
  let probs: Tensor | undefined;
  let ctxFlat: Tensor | undefined;
  const [ctxOut] = g.custom({
    inputs: [scores, values],
    forward: () => {
      probs = g.reshape(g.softmax(g.add(scores, mask), -1), [B, KV, G * T, S]);
      ctxFlat = g.matmul(probs, values);
      return [ctxFlat];
    },
    vjp: (gg, [dCtx]) => {
      const p = probs as Tensor;
      const dc = dCtx as Tensor;
      const dValues = gg.matmul(gg.transpose(p, [0, 1, 3, 2]), dc);
      const dProbs = gg.matmul(dc, gg.transpose(values, [0, 1, 3, 2]));
      const rowDot = gg.reduceSum(gg.mul(dc, ctxFlat as Tensor), [-1], true);
      const dScores = gg.reshape(gg.mul(p, gg.sub(dProbs, rowDot)), [B, KV, G, T, S]);
      return [dScores, dValues];
    },
  });
  return ctxOut as Tensor;
}

/** Consecutive slices `[start, end)` of `x` along `axis` with a VJP that concatenates (no Pad + Sum). */
function splitAxis(
  g: Graph,
  x: Tensor,
  axis: number,
  parts: readonly (readonly [number, number])[],
): Tensor[] {
  return g.custom({
    inputs: [x],
    forward: () => parts.map(([a, b]) => g.slice(x, axis, a, b)),
    vjp: (gg, grads) => [
      gg.concat(
        zip(parts, grads).map(([[a, b], d]) => {
          if (d !== null) return d;
          const shape = [...x.shape];
          shape[axis] = b - a;
          return gg.zeros(shape, x.dtype);
        }),
        axis,
      ),
    ],
  });
}

/**
 * Scaled dot-product attention of q [B, KV, G, T, hd] over keys/values [B, KV, S, hd]; returns
 * [B, T, KV·G·hd]. With static shapes the G query groups are folded into the time axis so each
 * (batch, kv head) is one large matrix product; otherwise matmul broadcasts over G.
 */
function attend(g: Graph, q5: Tensor, keys: Tensor, values: Tensor, mask: Tensor): Tensor {
  const [B, KV, G, T, hd] = q5.shape as [number, number, number, number, number];
  const S = dimAt(keys.shape, 2);
  if ([B, T, S].every((d) => d > 0)) {
    const qf = g.reshape(q5, [B, KV, G * T, hd]);
    const scores = g.reshape(g.matmul(qf, g.transpose(keys, [0, 1, 3, 2])), [B, KV, G, T, S]);
    const ctx = g.reshape(softmaxValues(g, scores, values, mask), [B, KV, G, T, hd]);
    return g.reshape(g.transpose(ctx, [0, 3, 1, 2, 4]), [B, T, KV * G * hd]);
  }
  const k5 = g.reshape(keys, [0, 0, 1, -1, hd]);
  const v5 = g.reshape(values, [0, 0, 1, -1, hd]);
  const scores = g.matmul(q5, g.transpose(k5, [0, 1, 2, 4, 3]));
  const ctx = g.matmul(g.softmax(g.add(scores, mask), -1), v5);
  return g.reshape(g.transpose(ctx, [0, 3, 1, 2, 4]), [0, 0, -1]);
}

/**
 * Causal attention (no past) in `blocks` query blocks: block i attends to the keys up to its last query
 * only, so the [T × T] work (scores, softmax, the products with V and their gradients) shrinks to about
 * (blocks + 1) / (2·blocks) of the full square. `mask` is the causal [T, T] mask.
 */
function attendCausalBlocks(
  g: Graph,
  q5: Tensor,
  keys: Tensor,
  values: Tensor,
  mask: Tensor,
  blocks: number,
): Tensor {
  const [B, KV, G, T, hd] = q5.shape as [number, number, number, number, number];
  const n = Math.max(1, Math.min(blocks, T));
  const boundary = (i: number) => Math.round((i * T) / n);
  const parts = Array.from({ length: n }, (_, i) => [boundary(i), boundary(i + 1)] as const);
  const qBlocks = splitAxis(g, q5, 3, parts);
  const keysT = g.transpose(keys, [0, 1, 3, 2]);
  const ctxs = zip(qBlocks, parts).map(([qi, [start, end]]) => {
    const rows = end - start;
    const ki = end === T ? keysT : g.slice(keysT, 3, 0, end);
    const vi = end === T ? values : g.slice(values, 2, 0, end);
    const mi = g.slice(g.slice(mask, -2, start, end), -1, 0, end);
    const scores = g.reshape(g.matmul(g.reshape(qi, [B, KV, G * rows, hd]), ki), [B, KV, G, rows, end]);
    const ctx = g.reshape(softmaxValues(g, scores, vi, mi), [B, KV, G, rows, hd]);
    return g.transpose(ctx, [0, 3, 1, 2, 4]);
  });
  return g.reshape(g.concat(ctxs, 1), [B, T, KV * G * hd]);
}

/** The output embedding [vocab, hidden] (the input embedding when tied). */
export function headWeight(config: ModelConfig, params: Readonly<Record<string, Tensor>>): Tensor {
  return param(params, config.tieWordEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight');
}
