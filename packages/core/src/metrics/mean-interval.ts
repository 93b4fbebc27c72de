/** Mean of a few independent values (one per seed) with a two-sided 95% Student-t interval. */

/** t_{0.975, df} for df = 1..30; larger df use the normal quantile. */
const T_975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

export interface MeanIntervalV1 {
  readonly n: number;
  readonly mean: number;
  /** Sample standard deviation (0 for one value). */
  readonly sd: number;
  /** mean ± t·sd/√n; equal to the mean when n < 2 (no spread to estimate). */
  readonly low: number;
  readonly high: number;
}

const tQuantile = (n: number): number => T_975[n - 2] ?? 1.959963984540054;

const average = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

const sampleSd = (xs: readonly number[], mean: number): number =>
  Math.sqrt(xs.reduce((a, v) => a + (v - mean) ** 2, 0) / (xs.length - 1));

export function meanInterval(values: readonly number[]): MeanIntervalV1 {
  const n = values.length;
  if (n === 0) return { n: 0, mean: Number.NaN, sd: 0, low: Number.NaN, high: Number.NaN };
  const mean = average(values);
  if (n < 2) return { n, mean, sd: 0, low: mean, high: mean };
  const sd = sampleSd(values, mean);
  const half = (tQuantile(n) * sd) / Math.sqrt(n);
  return { n, mean, sd, low: mean - half, high: mean + half };
}

/**
 * The ratio of two means over the same seeds, mean(numerators) / mean(denominators), with a 95% interval
 * from the ratio estimator's linearisation: the residuals numerator − ratio · denominator, whose t-interval
 * divided by the mean denominator bounds the ratio (`sd` is their sd over the mean denominator). Unlike a
 * mean of per-seed ratios it stays finite when one seed's denominator is near 0; `undefined` when the mean
 * denominator is not above `minDenominator`.
 */
export function ratioOfMeansInterval(
  numerators: readonly number[],
  denominators: readonly number[],
  minDenominator = 0,
): MeanIntervalV1 | undefined {
  const n = numerators.length;
  if (n === 0 || denominators.length !== n) return undefined;
  const den = average(denominators);
  if (!(den > minDenominator)) return undefined;
  const mean = average(numerators) / den;
  if (n < 2) return { n, mean, sd: 0, low: mean, high: mean };
  const sd =
    sampleSd(
      numerators.map((x, i) => x - mean * denominators[i]!),
      0,
    ) / den;
  const half = (tQuantile(n) * sd) / Math.sqrt(n);
  return { n, mean, sd, low: mean - half, high: mean + half };
}
