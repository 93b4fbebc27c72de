import type { Rng } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { createOrtSession } from '../runtime/session';
import { gradients, VJP_RULES } from './autodiff';
import { checkGradients, randomFloat64 } from './gradcheck';
import { createGraph, type Graph } from './graph';
import { serializeGraph } from './serialize';
import type { Tensor } from './tensor';

type Build = (g: Graph, x: (shape: number[], scale?: number) => Tensor, rng: Rng) => Tensor;

/** One case per VJP rule (some rules are covered by several). */
const CASES: Record<string, Build> = {
  Identity: (g, x) => g.identity(x([3, 2])),
  Add: (g, x) => g.add(x([2, 3, 4]), x([3, 1])),
  Sub: (g, x) => g.sub(x([3, 1]), x([2, 3, 4])),
  Mul: (g, x) => g.mul(x([2, 3, 4]), x([4])),
  Div: (g, x) => g.div(x([2, 3]), g.add(g.mul(x([3]), x([3])), g.scalar(0.5))),
  Sum: (g, x) => g.sum([x([2, 3]), x([3]), x([2, 1])]),
  Neg: (g, x) => g.neg(x([5])),
  Exp: (g, x) => g.exp(x([2, 3])),
  Log: (g, x) => g.log(g.add(g.mul(x([4]), x([4])), g.scalar(0.3))),
  Sqrt: (g, x) => g.sqrt(g.add(g.mul(x([4]), x([4])), g.scalar(0.3))),
  Reciprocal: (g, x) => g.reciprocal(g.add(g.mul(x([4]), x([4])), g.scalar(0.5))),
  Sigmoid: (g, x) => g.sigmoid(x([2, 3], 3)),
  Tanh: (g, x) => g.tanh(x([2, 3], 2)),
  Pow: (g, x) => g.add(g.pow(x([6]), 2), g.pow(g.add(g.mul(x([6]), x([6])), g.scalar(0.5)), -0.5)),
  MatMul: (g, x) => g.add(g.matmul(x([2, 3, 4, 5]), x([2, 3, 5, 2])), g.matmul(x([3, 4, 5]), x([5, 2]))),
  Gemm: (g, x) =>
    g.add(
      g.add(
        g.gemm(x([3, 4]), x([4, 5]), { bias: x([5]) }),
        g.gemm(x([4, 3]), x([5, 4]), { transA: true, transB: true }),
      ),
      g.add(g.gemm(x([4, 3]), x([4, 5]), { transA: true }), g.gemm(x([3, 4]), x([5, 4]), { transB: true })),
    ),
  Reshape: (g, x) => g.reshape(x([2, 6]), [3, 4]),
  Transpose: (g, x) => g.transpose(x([2, 3, 4]), [2, 0, 1]),
  Slice: (g, x) => g.slice(x([3, 5]), 1, 1, 4),
  Pad: (g, x) => g.pad(x([2, 3]), [1, 0, 0, 2]),
  Concat: (g, x) => g.concat([x([2, 1]), x([2, 3])], 1),
  Expand: (g, x) => g.expand(x([3, 1]), [2, 3, 4]),
  ReduceSum: (g, x) => g.add(g.reduceSum(x([2, 3, 4]), [0, 2], false), g.reduceSum(x([3, 4]), [1], true)),
  ReduceMean: (g, x) => g.reduceMean(x([2, 3, 4]), [-1], true),
  Softmax: (g, x) => g.softmax(x([3, 5], 2)),
  LogSoftmax: (g, x) => g.logSoftmax(x([3, 5], 2)),
  Gather: (g, x) => g.gather(x([5, 3]), g.constant([1, 4, 1, 0], [2, 2], 'int64')),
  GatherElements: (g, x) => g.gatherElements(x([3, 5]), g.constant([4, 4, 0, 2, 1, 1], [3, 2], 'int64'), 1),
  ScatterND: (g, x) => g.scatterNDAdd(x([4, 2]), g.constant([1, 3, 1], [3, 1], 'int64'), x([3, 2])),
  ScatterElements: (g, x) =>
    g.scatterElementsAdd(x([3, 4]), g.constant([0, 2, 2, 3, 1, 1], [3, 2], 'int64'), x([3, 2]), 1),
  Where: (g, x) => g.where(g.constant([1, 0, 1, 1, 0, 0], [2, 3], 'bool'), x([2, 3]), x([3])),
  Cast: (g, x) => g.cast(g.cast(x([3]), 'float32'), 'float64'),
};

describe('VJP rules', () => {
  it('every rule has a gradient-check case', () => {
    expect(Object.keys(CASES).sort()).toEqual(Object.keys(VJP_RULES).sort());
  });

  for (const [op, build] of Object.entries(CASES)) {
    it(`${op} matches central finite differences`, async () => {
      const result = await checkGradients({
        seed: 7,
        // Cast goes through float32: the function is linear, so a large step only fights rounding.
        eps: op === 'Cast' ? 1e-2 : 1e-6,
        build: (g, rng) => {
          const feeds: { tensor: Tensor; data: Float64Array }[] = [];
          const x = (shape: number[], scale = 1) => {
            const tensor = g.input(`x${feeds.length}`, shape);
            feeds.push({
              tensor,
              data: randomFloat64(
                rng.split(feeds.length),
                tensor.shape.reduce((p, d) => p * d, 1),
                scale,
              ),
            });
            return tensor;
          };
          const output = build(g, x, rng);
          return { feeds, output };
        },
      });
      expect(result.scale).toBeGreaterThan(1e-3);
      expect(result.maxError).toBeLessThan(op === 'Cast' ? 1e-4 : 1e-5);
    });
  }
});

describe('custom VJPs and the harness', () => {
  const square = (wrong: boolean) =>
    checkGradients({
      build: (g, rng) => {
        const t = g.input('x', [4]);
        const [y] = g.custom({
          inputs: [t],
          forward: () => [g.mul(t, t)],
          vjp: (gg, [dy]) => [gg.mul(dy as Tensor, gg.mul(t, gg.scalar(wrong ? 3 : 2)))],
        });
        return { feeds: [{ tensor: t, data: randomFloat64(rng, 4) }], output: y as Tensor };
      },
    });

  it('uses the composite rule instead of differentiating its forward nodes', async () => {
    expect((await square(false)).maxError).toBeLessThan(1e-8);
  });

  it('detects a wrong rule', async () => {
    expect((await square(true)).maxError).toBeGreaterThan(0.1);
  });
});

describe('embedding gradients with repeated ids', () => {
  it('adds every row of a large float32 Gather gradient (no lost updates across threads)', async () => {
    const V = 8;
    const D = 256;
    const N = 4096;
    const g = createGraph();
    const table = g.input('table', [V, D]);
    const ids = g.input('ids', [N], 'int64');
    const coef = g.input('coef', [N, D]);
    const loss = g.reduceSum(g.mul(g.gather(table, ids), coef), [0, 1], false);
    const [grad] = gradients(g, loss, [table]);
    g.output('grad', grad as Tensor);
    const session = await createOrtSession(serializeGraph(g));
    const idData = BigInt64Array.from({ length: N }, (_, i) => BigInt((i * 5 + (i >> 4)) % V));
    const coefData = Float32Array.from({ length: N * D }, (_, i) => ((i % 5) + 1) / 4);
    const expected = new Float64Array(V * D);
    for (let n = 0; n < N; n++)
      for (let j = 0; j < D; j++) {
        const at = Number(idData[n]) * D + j;
        expected[at] = (expected[at] as number) + (coefData[n * D + j] as number);
      }
    for (let run = 0; run < 3; run++) {
      const out = await session.run({
        table: { data: new Float32Array(V * D), dims: [V, D] },
        ids: { data: idData, dims: [N] },
        coef: { data: coefData, dims: [N, D] },
      });
      const got = out.grad?.data as Float32Array;
      let worst = 0;
      for (let i = 0; i < expected.length; i++)
        worst = Math.max(worst, Math.abs((got[i] as number) - (expected[i] as number)));
      expect(worst).toBeLessThan(1e-3);
    }
    await session.dispose();
  });
});
