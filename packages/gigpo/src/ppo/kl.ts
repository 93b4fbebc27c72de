/**
 * The low-variance KL estimator ("k3"): with d = logπ_ref − logπ,
 *   k(d) = exp(d) − d − 1 ≥ 0,   clamped to [−clamp, clamp] (default 10).
 * Its derivative with respect to logπ is 1 − exp(d) (0 where the clamp is active).
 */

export const DEFAULT_KL_CLAMP = 10;

/** k3 estimate of KL(π‖π_ref) for one token. */
export function lowVarianceKl(logprob: number, refLogprob: number, clamp = DEFAULT_KL_CLAMP): number {
  const d = refLogprob - logprob;
  const k = Math.exp(d) - d - 1;
  return k > clamp ? clamp : Math.max(k, -clamp);
}

/** ∂ lowVarianceKl / ∂ logprob. */
export function lowVarianceKlGrad(logprob: number, refLogprob: number, clamp = DEFAULT_KL_CLAMP): number {
  const d = refLogprob - logprob;
  const k = Math.exp(d) - d - 1;
  if (k > clamp || k < -clamp) return 0;
  return 1 - Math.exp(d);
}
