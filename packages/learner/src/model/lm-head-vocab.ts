/**
 * The LM head for large vocabularies, in vocabulary chunks: the same log p(target) and entropy as
 * `lmHeadLogprobs`, but the [rows × vocab] logits are only ever materialised one [rows × chunk] block
 * at a time, and the output embedding's gradient is written chunk by chunk (each block of rows once)
 * instead of accumulated over row chunks. See architecture/learner.md, "Large vocabularies".
 *
 * Forward, per chunk c: z_c = h·W_cᵀ, its log-sum-exp l_c and local entropy e_c (of softmax(z_c)).
 * Then log Z = logsumexp_c l_c; with mixture weights w_c = exp(l_c − log Z) the entropy is
 * H = Σ_c w_c (e_c − log w_c), and log p(t) = h·W[t] − log Z (the target logit from a row gather).
 * Backward, per chunk (logits recomputed): dz_c = p_c ⊙ (a + b·log p_c) with a = −(dLp + dH·H) and
 * b = −dH; dh += dz_c·W_c and dW_c = dz_cᵀ·h (computed as hᵀ·dz_c). The one-hot part of d log p(t) (+dLp at the target)
 * goes straight to h (dLp·W[t]) and to W's target rows (a scatter-add of dLp·h).
 */

import type { Graph } from '../graph/graph';
import { dimAt, type Tensor } from '../graph/tensor';
import type { LmHeadOptions, LmHeadResult } from './lm-head';

/** Logits per vocabulary block: about 4 M (16 MB) per block, at least 1,024 columns. */
export function defaultVocabChunk(rows: number, vocab: number): number {
  return Math.min(vocab, Math.max(1024, 1024 * Math.floor(4_194_304 / Math.max(1, rows) / 1024)));
}

export interface VocabChunkOptions extends LmHeadOptions {
  /** Vocabulary columns per chunk (default `defaultVocabChunk`). */
  readonly vocabChunk?: number;
}

export function lmHeadVocabChunks(g: Graph, options: VocabChunkOptions): LmHeadResult {
  const { hidden, weight, targets } = options;
  const N = dimAt(hidden.shape, 0);
  const D = dimAt(hidden.shape, 1);
  const V = dimAt(weight.shape, 0);
  const width = options.vocabChunk ?? defaultVocabChunk(N, V);
  const chunks: [number, number][] = [];
  for (let v = 0; v < V; v += width) chunks.push([v, Math.min(V, v + width)]);
  const W = (c: [number, number]) => (chunks.length === 1 ? weight : g.slice(weight, 0, c[0], c[1]));
  // Forward tensors the backward pass reuses: log Z, H and the target rows of W.
  let saved: { logZ: Tensor; H: Tensor; wt: Tensor } | null = null;

  const [logprobs, entropy] = g.custom({
    inputs: [hidden, weight],
    forward: () => {
      const lses: Tensor[] = [];
      const ents: Tensor[] = [];
      for (const c of chunks) {
        // MatMul with a transposed slice here, Gemm in the backward: common-subexpression elimination
        // cannot merge them and keep every block alive.
        const z = g.matmul(hidden, g.transpose(W(c), [1, 0]));
        const ls = g.logSoftmax(z, -1);
        lses.push(g.sub(g.slice(z, 1, 0, 1), g.slice(ls, 1, 0, 1)));
        ents.push(g.neg(g.reduceSum(g.mul(g.exp(ls), ls), [-1], true)));
      }
      const l = chunks.length === 1 ? (lses[0] as Tensor) : g.concat(lses, 1);
      const e = chunks.length === 1 ? (ents[0] as Tensor) : g.concat(ents, 1);
      const m = g.reduceMax(l, [-1], true);
      const logZ = g.add(m, g.log(g.reduceSum(g.exp(g.sub(l, m)), [-1], true)));
      const logW = g.sub(l, logZ);
      const H = g.reduceSum(g.mul(g.exp(logW), g.sub(e, logW)), [-1], true);
      const wt = g.gather(weight, targets);
      const zt = g.reduceSum(g.mul(hidden, wt), [-1], true);
      saved = { logZ, H, wt };
      return [g.reshape(g.sub(zt, logZ), [N]), g.reshape(H, [N])];
    },
    vjp: (gg, [dLp, dH]) => {
      if (saved === null) throw new Error('lmHeadVocabChunks: the backward pass needs the forward pass.');
      const { logZ, H, wt } = saved;
      const dl = dLp === null || dLp === undefined ? null : gg.reshape(dLp, [N, 1]);
      const dh = dH === null || dH === undefined ? null : gg.reshape(dH, [N, 1]);
      let a: Tensor | null = dl;
      if (dh !== null) a = a === null ? gg.mul(dh, H) : gg.add(a, gg.mul(dh, H));
      const negA = gg.neg(a as Tensor);
      const negB = dh === null ? null : gg.neg(dh);
      const negLogZ = gg.neg(logZ);
      // dWᵀ blocks [hidden, chunk] as hᵀ·dz_c: onnxruntime's Gemm with a transposed [rows × chunk]
      // operand ran at about a third of the untransposed rate; one transpose of [hidden, vocab] at the end.
      const hT = gg.transpose(hidden, [1, 0]);
      let dHidden: Tensor | null = null;
      const dWt: Tensor[] = [];
      for (const c of chunks) {
        const Wc = W(c);
        const logp = gg.gemm(hidden, Wc, { transB: true, bias: negLogZ });
        const inner = negB === null ? negA : gg.add(negA, gg.mul(logp, negB));
        const dz = gg.mul(gg.exp(logp), inner);
        dHidden = gg.gemm(dz, Wc, dHidden === null ? {} : { bias: dHidden });
        dWt.push(gg.matmul(hT, dz));
      }
      let dWeight = gg.transpose(dWt.length === 1 ? (dWt[0] as Tensor) : gg.concat(dWt, 1), [1, 0]);
      if (dl !== null) {
        // The target's one-hot term: +dLp·W[t] into h, +dLp·h into W's row t (targets may repeat, so
        // a ScatterElements add, which is race-free in onnxruntime).
        dHidden = gg.add(dHidden as Tensor, gg.mul(dl, wt));
        const rows = gg.expand(gg.reshape(targets, [N, 1]), [N, D]);
        dWeight = gg.scatterElementsAdd(dWeight, rows, gg.mul(dl, hidden), 0);
      }
      return [dHidden, dWeight];
    },
  });
  return { logprobs: logprobs as Tensor, entropy: entropy as Tensor };
}
