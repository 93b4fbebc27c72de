/** Rates with 95% Wilson score intervals: every rate the rollout metrics report. */

/** z for a two-sided 95% interval. */
export const Z_95 = 1.959963984540054;

/** A rate with its count and Wilson interval. With `trials = 0`: rate 0, interval [0, 1]. */
export interface RateV1 {
  readonly successes: number;
  readonly trials: number;
  readonly rate: number;
  readonly low: number;
  readonly high: number;
}

/** Wilson score interval of `successes` out of `trials` (default 95%). */
export function wilsonInterval(
  successes: number,
  trials: number,
  z: number = Z_95,
): { readonly low: number; readonly high: number } {
  if (trials <= 0) return { low: 0, high: 1 };
  const p = successes / trials;
  const z2 = z * z;
  const denom = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denom;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export function rate(successes: number, trials: number, z: number = Z_95): RateV1 {
  const { low, high } = wilsonInterval(successes, trials, z);
  return { successes, trials, rate: trials > 0 ? successes / trials : 0, low, high };
}

/** `0.62 [0.48, 0.74] (31/50)`. */
export function formatRate(r: RateV1, digits = 2): string {
  return `${r.rate.toFixed(digits)} [${r.low.toFixed(digits)}, ${r.high.toFixed(digits)}] (${r.successes}/${r.trials})`;
}
