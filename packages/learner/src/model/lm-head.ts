/**
 * The chunked LM head: per-token log-prob of the target and entropy of the predictive distribution,
 * computed chunk by chunk so the graph never holds more than one [chunk × vocab] block per pass. With
 * several chunks the backward pass recomputes each chunk's logits instead of keeping them (one extra
 * head GEMM); with one chunk (small vocabularies) it reuses the forward's log-probs.
 */

import type { Graph } from '../graph/graph';
import { dimAt, type Tensor } from '../graph/tensor';

export interface LmHeadOptions {
  /** [N, hidden]. */
  readonly hidden: Tensor;
  /** Output embedding [vocab, hidden]. */
  readonly weight: Tensor;
  /** Target ids [N] (int64). */
  readonly targets: Tensor;
  /** Rows per chunk (default: about 4 M logits per chunk, at least 64 rows). */
  readonly chunkRows?: number;
}

export interface LmHeadResult {
  /** log p(target) [N]. */
  readonly logprobs: Tensor;
  /** −Σ p log p [N]. */
  readonly entropy: Tensor;
}

/**
 * Vocabularies at least this large take the large-vocabulary path: the learner's graphs compute the LM
 * head only at the scored positions (the tokens whose log-probs are read), in vocabulary chunks
 * (`lmHeadVocabChunks`; see architecture/learner.md, "Large vocabularies"). Smaller ones (mage-tiny's few hundred ids) keep the
 * head over every position in one chunk, which is faster there.
 */
export const LARGE_VOCAB_MIN = 16_384;

/** Whether a model with this vocabulary takes the large-vocabulary path by default. */
export const isLargeVocab = (vocabSize: number): boolean => vocabSize >= LARGE_VOCAB_MIN;

export function defaultChunkRows(rows: number, vocab: number): number {
  return Math.min(rows, Math.max(64, Math.floor(4_194_304 / vocab)));
}

export function lmHeadLogprobs(g: Graph, options: LmHeadOptions): LmHeadResult {
  const { hidden, weight, targets } = options;
  const N = dimAt(hidden.shape, 0);
  const V = dimAt(weight.shape, 0);
  const rows = options.chunkRows ?? defaultChunkRows(N, V);
  const chunks: [number, number][] = [];
  for (let r = 0; r < N; r += rows) chunks.push([r, Math.min(N, r + rows)]);
  const targets2 = g.reshape(targets, [N, 1]);
  const chunkOf = (t: Tensor, [a, b]: [number, number]) => (chunks.length === 1 ? t : g.slice(t, 0, a, b));
  // With one chunk the forward's log-probs and probabilities are kept for the backward pass (no
  // recomputation); with several, each chunk's logits are recomputed so only one block is alive.
  const reuse = chunks.length === 1;
  const saved: { logp: Tensor; p: Tensor; ent: Tensor }[] = [];
  const stats = (gg: Graph, logp: Tensor) => {
    const p = gg.exp(logp);
    return { logp, p, ent: gg.neg(gg.reduceSum(gg.mul(p, logp), [-1], true)) };
  };

  const [logprobs, entropy] = g.custom({
    inputs: [hidden, weight],
    forward: () => {
      // Forward logits use MatMul with a transposed weight; the backward recomputation uses Gemm, so
      // common-subexpression elimination cannot merge them and keep every chunk's logits alive.
      const wt = g.transpose(weight, [1, 0]);
      const lps: Tensor[] = [];
      const ents: Tensor[] = [];
      for (const c of chunks) {
        const st = stats(g, g.logSoftmax(g.matmul(chunkOf(hidden, c), wt), -1));
        if (reuse) saved.push(st);
        lps.push(g.gatherElements(st.logp, chunkOf(targets2, c), 1));
        ents.push(st.ent);
      }
      return [g.reshape(g.concat(lps, 0), [N]), g.reshape(g.concat(ents, 0), [N])];
    },
    vjp: (gg, [dLp, dH]) => {
      const dLp2 = dLp === null || dLp === undefined ? null : gg.reshape(dLp, [N, 1]);
      const dH2 = dH === null || dH === undefined ? null : gg.reshape(dH, [N, 1]);
      const dHidden: Tensor[] = [];
      // The weight's gradient accumulates chunk by chunk (Gemm's C input), so one [vocab × hidden]
      // partial sum is alive at a time instead of one per chunk.
      let dWeight: Tensor | null = null;
      for (const [ci, c] of chunks.entries()) {
        const h = chunkOf(hidden, c);
        const { logp, p, ent } =
          saved[ci] ?? stats(gg, gg.logSoftmax(gg.gemm(h, weight, { transB: true }), -1));
        // d/dz log p_t = onehot_t − p;  d/dz H = −p (log p + H). So with per-row a = −(dLp + dH·H) and
        // b = −dH: dz = p ⊙ (a + b·log p) + onehot_t·dLp (three passes over the block, plus the scatter).
        const dl = dLp2 === null ? null : chunkOf(dLp2, c);
        const dh = dH2 === null ? null : chunkOf(dH2, c);
        let a: Tensor | null = dl;
        if (dh !== null) a = a === null ? gg.mul(dh, ent) : gg.add(a, gg.mul(dh, ent));
        let inner = gg.neg(a as Tensor);
        if (dh !== null) inner = gg.sub(inner, gg.mul(logp, dh));
        let dz = gg.mul(p, inner);
        if (dl !== null) {
          // ScatterND at the distinct (row, target) pairs: parallel and race-free (ScatterElements is a
          // slow single-threaded kernel in onnxruntime).
          const n = c[1] - c[0];
          const rowIds = gg.constant(
            Array.from({ length: n }, (_, i) => i),
            [n, 1],
            'int64',
          );
          const at = gg.concat([rowIds, chunkOf(targets2, c)], 1);
          dz = gg.raw(
            'ScatterND',
            [dz, at, gg.reshape(dl, [n])],
            { dtype: dz.dtype, shape: dz.shape },
            {
              reduction: { str: 'add' },
            },
          );
        }
        dHidden.push(gg.gemm(dz, weight));
        dWeight = gg.gemm(dz, h, { transA: true, ...(dWeight === null ? {} : { bias: dWeight }) });
      }
      return [gg.concat(dHidden, 0), dWeight];
    },
  });
  return { logprobs: logprobs as Tensor, entropy: entropy as Tensor };
}
