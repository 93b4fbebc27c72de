/**
 * The low-variance KL estimator ("k3"): with d = logπ_ref − logπ,
 *   k(d) = exp(d) − d − 1 ≥ 0,   dk/dlogπ = 1 − exp(d).
 * Its gradient explodes as d grows (a sampled token the reference finds far likelier than the policy does).
 * Beyond the two points where k reaches `clamp` (d_lo < 0 < d_hi; default clamp 10) k continues along its
 * tangent there, so the gradient is held at its value at the edge: bounded on both sides, and never 0. A
 * value clamp with a zero gradient beyond it would leave a token the policy has pushed far from the
 * reference (notes taken over by the play turns' format, say) with no force pulling it back; see
 * architecture/gigpo.md.
 */

export const DEFAULT_KL_CLAMP = 10;

/** The points d_lo < 0 < d_hi where k3 equals `clamp` (Newton's method on exp(d) − d − 1 = clamp). */
export function klEdges(clamp = DEFAULT_KL_CLAMP): KlEdges {
  const solve = (start: number): number => {
    let d = start;
    for (let i = 0; i < 60; i++) {
      const step = (Math.exp(d) - d - 1 - clamp) / (Math.exp(d) - 1);
      d -= step;
      if (Math.abs(step) < 1e-14) break;
    }
    return d;
  };
  return { lo: solve(-clamp - 1), hi: solve(Math.log(clamp + 2)) };
}

/** The two points where k3 reaches the clamp (`klEdges`). */
export interface KlEdges {
  readonly lo: number;
  readonly hi: number;
}

/** d held to the edges: k3 and its gradient at d are those of the tangent at this point. */
function edgePoint(d: number, edges: KlEdges): number {
  return Math.min(Math.max(d, edges.lo), edges.hi);
}

/** k3 at d = logπ_ref − logπ, along its tangent at the edge beyond `edges`. */
export function k3(d: number, edges: KlEdges): number {
  const c = edgePoint(d, edges);
  const ec = Math.exp(c);
  return ec - c - 1 + (ec - 1) * (d - c);
}

/** ∂ k3 / ∂ logπ at d: 1 − exp(d), held at its edge values beyond `edges`. */
export function k3Grad(d: number, edges: KlEdges): number {
  return 1 - Math.exp(edgePoint(d, edges));
}

/** k3 estimate of KL(π‖π_ref) for one token, continued linearly beyond `clamp`. */
export function lowVarianceKl(logprob: number, refLogprob: number, clamp = DEFAULT_KL_CLAMP): number {
  return k3(refLogprob - logprob, klEdges(clamp));
}

/** ∂ lowVarianceKl / ∂ logprob: 1 − exp(d), held at its edge values beyond `clamp`. */
export function lowVarianceKlGrad(logprob: number, refLogprob: number, clamp = DEFAULT_KL_CLAMP): number {
  return k3Grad(refLogprob - logprob, klEdges(clamp));
}
