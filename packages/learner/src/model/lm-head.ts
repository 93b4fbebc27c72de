/**
 * The chunked LM head: per-token log-prob of the target and entropy of the predictive distribution,
 * computed chunk by chunk so the graph never holds more than one [chunk × vocab] block per pass. Its
 * backward pass recomputes each chunk's logits instead of keeping them (one extra head GEMM).
 */

import type { Graph } from '../graph/graph';
import type { Tensor } from '../graph/tensor';

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

export function defaultChunkRows(rows: number, vocab: number): number {
  return Math.min(rows, Math.max(64, Math.floor(4_194_304 / vocab)));
}

export function lmHeadLogprobs(g: Graph, options: LmHeadOptions): LmHeadResult {
  const { hidden, weight, targets } = options;
  const N = hidden.shape[0] as number;
  const V = weight.shape[0] as number;
  const rows = options.chunkRows ?? defaultChunkRows(N, V);
  const chunks: [number, number][] = [];
  for (let r = 0; r < N; r += rows) chunks.push([r, Math.min(N, r + rows)]);
  const targets2 = g.reshape(targets, [N, 1]);
  const chunkOf = (t: Tensor, [a, b]: [number, number]) => (chunks.length === 1 ? t : g.slice(t, 0, a, b));

  const [logprobs, entropy] = g.custom({
    inputs: [hidden, weight],
    forward: () => {
      // Forward logits use MatMul with a transposed weight; the backward recomputation uses Gemm, so
      // common-subexpression elimination cannot merge them and keep every chunk's logits alive.
      const wt = g.transpose(weight, [1, 0]);
      const lps: Tensor[] = [];
      const ents: Tensor[] = [];
      for (const c of chunks) {
        const logp = g.logSoftmax(g.matmul(chunkOf(hidden, c), wt), -1);
        lps.push(g.gatherElements(logp, chunkOf(targets2, c), 1));
        ents.push(g.neg(g.reduceSum(g.mul(g.exp(logp), logp), [-1], true)));
      }
      return [g.reshape(g.concat(lps, 0), [N]), g.reshape(g.concat(ents, 0), [N])];
    },
    vjp: (gg, [dLp, dH]) => {
      const dLp2 = dLp === null || dLp === undefined ? null : gg.reshape(dLp, [N, 1]);
      const dH2 = dH === null || dH === undefined ? null : gg.reshape(dH, [N, 1]);
      const dHidden: Tensor[] = [];
      const dWeight: Tensor[] = [];
      for (const c of chunks) {
        const h = chunkOf(hidden, c);
        const logp = gg.logSoftmax(gg.gemm(h, weight, { transB: true }), -1);
        const p = gg.exp(logp);
        // d/dz log p_t = onehot − p;  d/dz H = −p (log p + H).
        let coef: Tensor | null = dLp2 === null ? null : chunkOf(dLp2, c);
        if (dH2 !== null) {
          const ent = gg.neg(gg.reduceSum(gg.mul(p, logp), [-1], true));
          const term = gg.mul(chunkOf(dH2, c), gg.add(logp, ent));
          coef = coef === null ? term : gg.add(coef, term);
        }
        let dz = gg.neg(gg.mul(p, coef as Tensor));
        if (dLp2 !== null) dz = gg.scatterElementsAdd(dz, chunkOf(targets2, c), chunkOf(dLp2, c), 1);
        dHidden.push(gg.gemm(dz, weight));
        dWeight.push(gg.gemm(dz, h, { transA: true }));
      }
      return [gg.concat(dHidden, 0), gg.sum(dWeight)];
    },
  });
  return { logprobs: logprobs as Tensor, entropy: entropy as Tensor };
}
