/**
 * Gradient checking: builds a float64 graph, projects its output on a fixed random direction to get a
 * scalar, differentiates it with `gradients()`, runs it in onnxruntime and compares every requested
 * gradient with central finite differences.
 */

import { at, createRng, type Rng } from '@mage-rl/core';
import {
  createOrtSession,
  type OrtSession,
  outputData,
  type TensorArray,
  type TensorValue,
} from '../runtime/session';
import { gradients } from './autodiff';
import { createGraph, type Graph } from './graph';
import { serializeGraph } from './serialize';
import { sizeOf, type Tensor } from './tensor';

export interface GradcheckFeed {
  readonly tensor: Tensor;
  readonly data: TensorArray;
  /** Check the gradient with respect to this input (default: true for float inputs). */
  readonly check?: boolean;
}

export interface GradcheckCase {
  readonly feeds: readonly GradcheckFeed[];
  /** Any float64 tensor; it is reduced to a scalar by a random projection. */
  readonly output: Tensor;
}

export interface GradcheckOptions {
  readonly build: (g: Graph, rng: Rng) => GradcheckCase;
  readonly seed?: number;
  /** Elements checked per input (default: all up to 24, then a random sample of 24). */
  readonly samples?: number;
  readonly eps?: number;
}

export interface GradcheckResult {
  /** Norm-wise relative error ‖analytic − numeric‖ / max(‖analytic‖, ‖numeric‖) per checked input. */
  readonly errors: Readonly<Record<string, number>>;
  readonly maxError: number;
  /** Largest |numeric gradient| seen (a check of all-zero gradients proves nothing). */
  readonly scale: number;
}

/** Uniform values in [-scale, scale). */
export function randomFloat64(rng: Rng, n: number, scale = 1): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = (rng.next() * 2 - 1) * scale;
  return out;
}

export async function checkGradients(options: GradcheckOptions): Promise<GradcheckResult> {
  const rng = createRng(options.seed ?? 1);
  const g = createGraph({ float: 'float64' });
  const { feeds, output } = options.build(g, rng.split('build'));
  const projection = g.constant(randomFloat64(rng.split('projection'), sizeOf(output.shape)), output.shape);
  const loss = g.reduceSum(g.mul(output, projection), [...output.shape.keys()], false);
  g.output('loss', loss);
  const checked = feeds.flatMap(({ tensor, data, check }) =>
    (check ?? true) && data instanceof Float64Array ? [{ tensor, data }] : [],
  );
  const grads = gradients(
    g,
    loss,
    checked.map((f) => f.tensor),
  );
  for (const [i, d] of grads.entries()) g.output(`grad_${i}`, d);

  const full = await createOrtSession(serializeGraph(g), { threads: 1, optimization: 'basic' });
  const lossOnly = await createOrtSession(serializeGraph(g, { outputs: ['loss'] }), {
    threads: 1,
    optimization: 'basic',
  });
  try {
    const feedMap: Record<string, TensorValue> = {};
    for (const f of feeds)
      feedMap[f.tensor.name] = {
        data: f.data,
        dims: f.tensor.shape,
        ...(f.tensor.dtype === 'bool' ? { type: 'bool' as const } : {}),
      };
    const result = await full.run(feedMap);
    const eps = options.eps ?? 1e-6;
    const maxSamples = options.samples ?? 24;
    const errors: Record<string, number> = {};
    let scale = 0;
    for (const [i, f] of checked.entries()) {
      const analytic = outputData(result, `grad_${i}`, Float64Array);
      const data = f.data;
      const indices = pickIndices(rng.split(`sample-${i}`), data.length, maxSamples);
      let diff2 = 0;
      let a2 = 0;
      let n2 = 0;
      for (const j of indices) {
        const numeric = await centralDifference(lossOnly, feedMap, data, j, eps);
        const a = at(analytic, j);
        diff2 += (a - numeric) ** 2;
        a2 += a * a;
        n2 += numeric * numeric;
        scale = Math.max(scale, Math.abs(numeric));
      }
      errors[f.tensor.name] = Math.sqrt(diff2) / Math.max(Math.sqrt(a2), Math.sqrt(n2), 1e-300);
    }
    const maxError = Math.max(0, ...Object.values(errors));
    return { errors, maxError, scale };
  } finally {
    await full.dispose();
    await lossOnly.dispose();
  }
}

function pickIndices(rng: Rng, n: number, max: number): number[] {
  const all = [...Array(n).keys()];
  if (n <= max) return all;
  return rng.shuffle(all).slice(0, max);
}

async function centralDifference(
  session: OrtSession,
  feeds: Record<string, TensorValue>,
  data: Float64Array,
  j: number,
  eps: number,
): Promise<number> {
  const original = at(data, j);
  const lossAt = async (v: number): Promise<number> => {
    data[j] = v;
    const out = await session.run(feeds);
    return at(outputData(out, 'loss', Float64Array), 0);
  };
  try {
    const plus = await lossAt(original + eps);
    const minus = await lossAt(original - eps);
    return (plus - minus) / (2 * eps);
  } finally {
    data[j] = original;
  }
}
