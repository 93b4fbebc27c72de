/**
 * AdamW over named float32 tensors, with global-norm gradient clipping, a learning-rate schedule and
 * NaN/Inf step skipping (the weights keep their last good values; three bad steps in a row abort).
 */

import { InvalidArgumentError, NumericInstabilityError } from '@mage-rl/core';

export type LrSchedule = (step: number) => number;

export interface LrScheduleOptions {
  readonly lr: number;
  readonly warmupSteps?: number;
  /** Steps of the decay phase end (required for `cosine` and `linear`). */
  readonly totalSteps?: number;
  readonly decay?: 'constant' | 'cosine' | 'linear';
  /** Final learning rate as a fraction of `lr` (default 0.1). */
  readonly minRatio?: number;
}

/** Linear warm-up, then constant, cosine or linear decay to `minRatio·lr`. `step` counts from 0. */
export function createLrSchedule(options: LrScheduleOptions): LrSchedule {
  const { lr } = options;
  const warm = options.warmupSteps ?? 0;
  const decay = options.decay ?? 'constant';
  const minRatio = options.minRatio ?? 0.1;
  const total = options.totalSteps ?? 0;
  if (decay !== 'constant' && total <= warm) {
    throw new InvalidArgumentError(`A ${decay} schedule needs totalSteps > warmupSteps.`);
  }
  return (step) => {
    if (step < warm) return (lr * (step + 1)) / warm;
    if (decay === 'constant') return lr;
    const t = Math.min(1, (step - warm) / (total - warm));
    const f = decay === 'cosine' ? 0.5 * (1 + Math.cos(Math.PI * t)) : 1 - t;
    return lr * (minRatio + (1 - minRatio) * f);
  };
}

export interface AdamWOptions {
  readonly lr: number | LrSchedule;
  readonly beta1?: number;
  readonly beta2?: number;
  readonly eps?: number;
  readonly weightDecay?: number;
  /** Global gradient-norm clip (default 1.0; `Infinity` disables). */
  readonly maxGradNorm?: number;
  /** Parameters without weight decay (default: names containing `norm` or ending in `.bias`). */
  readonly noDecay?: (name: string) => boolean;
  /** Consecutive NaN/Inf steps before `NumericInstabilityError` (default 3). */
  readonly maxConsecutiveSkips?: number;
}

export interface AdamWState {
  /** Optimizer steps taken (skipped steps excluded). */
  step: number;
  consecutiveSkips: number;
  readonly m: Map<string, Float32Array>;
  readonly v: Map<string, Float32Array>;
}

export interface StepResult {
  readonly skipped: boolean;
  /** Global gradient norm before clipping (NaN/Inf when skipped). */
  readonly gradNorm: number;
  readonly lr: number;
}

export interface AdamW {
  readonly state: AdamWState;
  /**
   * Updates `params` in place from `grads` (scaled by `gradScale` first, e.g. 1/accumulated batches).
   * Only names present in `grads` are touched.
   */
  step(
    params: Map<string, Float32Array>,
    grads: ReadonlyMap<string, Float32Array>,
    gradScale?: number,
  ): StepResult;
}

const defaultNoDecay = (name: string): boolean => name.includes('norm') || name.endsWith('.bias');

/** Σ x² of one array (a small monomorphic kernel: V8 keeps it fast). */
function sumSquares(g: Float32Array): number {
  let s0 = 0;
  let s1 = 0;
  const n = g.length;
  let i = 0;
  for (; i + 1 < n; i += 2) {
    const a = g[i] as number;
    const b = g[i + 1] as number;
    s0 += a * a;
    s1 += b * b;
  }
  if (i < n) s0 += (g[i] as number) ** 2;
  return s0 + s1;
}

export function globalNorm(grads: Iterable<Float32Array>, scale = 1): number {
  let sum = 0;
  for (const g of grads) sum += sumSquares(g);
  return Math.sqrt(sum) * Math.abs(scale);
}

/** One AdamW update of `w` in place (bias corrections folded into `stepSize` and `invBc2`). */
function adamwKernel(
  w: Float32Array,
  g: Float32Array,
  m: Float32Array,
  v: Float32Array,
  scale: number,
  b1: number,
  b2: number,
  decay: number,
  stepSize: number,
  invBc2: number,
  eps: number,
): void {
  const c1 = 1 - b1;
  const c2 = 1 - b2;
  const n = w.length;
  for (let i = 0; i < n; i++) {
    const gi = (g[i] as number) * scale;
    const mi = b1 * (m[i] as number) + c1 * gi;
    const vi = b2 * (v[i] as number) + c2 * gi * gi;
    m[i] = mi;
    v[i] = vi;
    w[i] = (w[i] as number) * decay - (stepSize * mi) / (Math.sqrt(vi * invBc2) + eps);
  }
}

export function createAdamW(options: AdamWOptions, state?: AdamWState): AdamW {
  const { lr: lrOption } = options;
  const schedule: LrSchedule = typeof lrOption === 'number' ? () => lrOption : lrOption;
  const b1 = options.beta1 ?? 0.9;
  const b2 = options.beta2 ?? 0.999;
  const eps = options.eps ?? 1e-8;
  const wd = options.weightDecay ?? 0.01;
  const maxNorm = options.maxGradNorm ?? 1;
  const noDecay = options.noDecay ?? defaultNoDecay;
  const maxSkips = options.maxConsecutiveSkips ?? 3;
  const s: AdamWState = state ?? { step: 0, consecutiveSkips: 0, m: new Map(), v: new Map() };

  return {
    state: s,
    step(params, grads, gradScale = 1) {
      const lr = schedule(s.step);
      const norm = globalNorm(grads.values(), gradScale);
      if (!Number.isFinite(norm)) {
        s.consecutiveSkips++;
        if (s.consecutiveSkips >= maxSkips) {
          throw new NumericInstabilityError(
            `Gradients were NaN/Inf in ${s.consecutiveSkips} consecutive steps; stopping with the last good weights.`,
            { context: { step: s.step, consecutiveSkips: s.consecutiveSkips } },
          );
        }
        return { skipped: true, gradNorm: norm, lr };
      }
      s.consecutiveSkips = 0;
      const clip = norm > maxNorm ? maxNorm / (norm + 1e-6) : 1;
      const scale = gradScale * clip;
      s.step++;
      const bc1 = 1 - b1 ** s.step;
      const bc2 = 1 - b2 ** s.step;
      const stepSize = lr / bc1;
      for (const [name, g] of grads) {
        const w = params.get(name);
        if (w === undefined || w.length !== g.length) {
          throw new InvalidArgumentError(`AdamW: no parameter '${name}' of ${g.length} values.`);
        }
        let m = s.m.get(name);
        let v = s.v.get(name);
        if (m === undefined || v === undefined) {
          m = new Float32Array(w.length);
          v = new Float32Array(w.length);
          s.m.set(name, m);
          s.v.set(name, v);
        }
        const decay = noDecay(name) ? 1 : 1 - lr * wd;
        adamwKernel(w, g, m, v, scale, b1, b2, decay, stepSize, 1 / bc2, eps);
      }
      return { skipped: false, gradNorm: norm, lr };
    },
  };
}
