/**
 * AdamW over named float32 tensors, with global-norm gradient clipping, a learning-rate schedule and
 * NaN/Inf step skipping (the weights keep their last good values; three bad steps in a row abort).
 */

import { InvalidArgumentError, NumericInstabilityError } from '@mage-rl/core';
import { type KernelConstants, WasmMoments } from './adamw-wasm';

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
  /**
   * Bytes of WebAssembly memory for the moments (default `DEFAULT_WASM_MOMENT_BYTES`). Tensors whose
   * moments fit update with its SIMD kernels (`adamw-wasm.ts`); the rest in JavaScript, about 4× slower.
   */
  readonly wasmMomentBytes?: number;
}

/**
 * Default `AdamWOptions.wasmMomentBytes`: 2 GiB, half of what a WebAssembly memory can address, room for
 * the moments of about 170 M trained parameters.
 */
export const DEFAULT_WASM_MOMENT_BYTES = 2 ** 31;

export interface AdamWState {
  /** Optimizer steps taken (skipped steps excluded). */
  step: number;
  consecutiveSkips: number;
  /**
   * The first and second moments by tensor. After a step they may be views of the optimizer's
   * WebAssembly memory, replaced by new views when it grows: read them from the map, do not keep them.
   */
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

/** One AdamW update of `w` in place in JavaScript (the kernel of tensors without WebAssembly moments). */
function adamwKernel(
  w: Float32Array,
  g: Float32Array,
  m: Float32Array,
  v: Float32Array,
  c: KernelConstants,
): void {
  const { b1, c1, b2, c2, decay, stepSize, sib, eps } = c;
  const n = w.length;
  for (let i = 0; i < n; i++) {
    const gi = g[i] as number;
    const mi = b1 * (m[i] as number) + c1 * gi;
    const vi = b2 * (v[i] as number) + c2 * gi * gi;
    m[i] = mi;
    v[i] = vi;
    w[i] = (w[i] as number) * decay - (stepSize * mi) / (Math.sqrt(vi) * sib + eps);
  }
}

/** The moments of a tensor that has none yet in JavaScript (zeros). */
function jsMoments(s: AdamWState, name: string, n: number): [Float32Array, Float32Array] {
  let m = s.m.get(name);
  let v = s.v.get(name);
  if (m === undefined || v === undefined) {
    m = new Float32Array(n);
    v = new Float32Array(n);
    s.m.set(name, m);
    s.v.set(name, v);
  }
  return [m, v];
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
  const wasm = new WasmMoments(options.wasmMomentBytes ?? DEFAULT_WASM_MOMENT_BYTES);

  return {
    state: s,
    step(params, grads, gradScale = 1) {
      const lr = schedule(s.step);
      for (const [name, g] of grads) {
        const w = params.get(name);
        if (w === undefined || w.length !== g.length) {
          throw new InvalidArgumentError(`AdamW: no parameter '${name}' of ${g.length} values.`);
        }
        const m = s.m.get(name);
        if (m !== undefined && (m.length !== g.length || s.v.get(name)?.length !== g.length)) {
          throw new InvalidArgumentError(`AdamW: the moments of '${name}' do not have ${g.length} values.`);
        }
      }
      wasm.place(new Map([...grads].map(([name, g]) => [name, g.length])), s.m, s.v);
      let sum = 0;
      for (const [name, g] of grads) sum += wasm.has(name) ? wasm.sumSquares(name, g) : sumSquares(g);
      const norm = Math.sqrt(sum) * Math.abs(gradScale);
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
      const shared = {
        b1,
        c1: (1 - b1) * scale,
        b2,
        c2: (1 - b2) * scale * scale,
        stepSize: lr / (1 - b1 ** s.step),
        sib: 1 / Math.sqrt(1 - b2 ** s.step),
        eps,
      };
      for (const [name, g] of grads) {
        const w = params.get(name) as Float32Array;
        const c: KernelConstants = { ...shared, decay: noDecay(name) ? 1 : 1 - lr * wd };
        if (wasm.has(name)) wasm.update(name, w, c);
        else adamwKernel(w, g, ...jsMoments(s, name, w.length), c);
      }
      return { skipped: false, gradNorm: norm, lr };
    },
  };
}
