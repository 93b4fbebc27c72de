import { createRng } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { createGraph } from '../graph/graph';
import { serializeGraph } from '../graph/serialize';
import { createOrtSession } from '../runtime/session';
import { STREAMED_WEIGHT_ELEMENTS, streamedProduct } from './transformer';

const K = 512;
const N = STREAMED_WEIGHT_ELEMENTS / K;
const rng = createRng(21);
const w = Float32Array.from({ length: N * K }, () => rng.next() - 0.5);
const x = Float32Array.from({ length: 64 * K }, () => rng.next() - 0.5);

/** x·Wᵀ of the first `rows` rows of x [rows, 1, K], through `streamedProduct` or as x·Wᵀ. */
async function product(rows: number, streamed: boolean): Promise<Float32Array> {
  const g = createGraph();
  const xi = g.input('x', [rows, 1, K]);
  const wi = g.input('w', [N, K]);
  g.output('y', streamed ? streamedProduct(g, xi, wi) : g.matmul(xi, g.transpose(wi, [1, 0])));
  const session = await createOrtSession(serializeGraph(g));
  const out = await session.run({
    x: { data: x.subarray(0, rows * K), dims: [rows, 1, K] },
    w: { data: w, dims: [N, K] },
  });
  await session.dispose();
  return out.y?.data as Float32Array;
}

describe('streamedProduct', () => {
  it('gives x·Wᵀ, and a row the same numbers in products of 2 to 64 rows', async () => {
    const pair = await product(2, true);
    for (const rows of [1, 2, 4, 16, 32, 64]) {
      const y = await product(rows, true);
      const ref = await product(rows, false);
      expect(y).toHaveLength(rows * N);
      let diff = 0;
      for (let i = 0; i < y.length; i++) diff = Math.max(diff, Math.abs((y[i] ?? 0) - (ref[i] ?? 0)));
      expect(diff).toBeLessThan(1e-4);
      // Bit for bit: the first two rows as in a product of two rows (one row runs x·Wᵀ itself).
      if (rows >= 2) expect(y.subarray(0, 2 * N)).toEqual(pair);
    }
  });

  it('keeps x·Wᵀ for a small weight or a row count that does not split in products of 16', () => {
    const g = createGraph();
    const small = streamedProduct(g, g.input('a', [16, 8]), g.input('ws', [8, 8]));
    const uneven = streamedProduct(g, g.input('b', [24, K]), g.input('wl', [N, K]));
    expect(small.shape).toEqual([16, 8]);
    expect(uneven.shape).toEqual([24, N]);
    expect(g.producer(small)?.op).toBe('MatMul');
    expect(g.producer(uneven)?.op).toBe('MatMul');
  });
});
