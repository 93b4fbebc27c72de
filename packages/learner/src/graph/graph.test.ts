import { MageError } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { createGraph } from './graph';

describe('shape inference', () => {
  it('broadcasts, multiplies and reshapes', () => {
    const g = createGraph();
    const a = g.input('a', [2, 1, 4]);
    const b = g.input('b', [3, 1]);
    expect(g.add(a, b).shape).toEqual([2, 3, 4]);
    expect(g.matmul(g.input('c', [5, 2, 3]), g.input('d', [3, 7])).shape).toEqual([5, 2, 7]);
    expect(g.gemm(g.input('e', [3, 2]), g.input('f', [4, 3]), { transA: true, transB: true }).shape).toEqual([
      2, 4,
    ]);
    expect(g.reshape(a, [-1, 2]).shape).toEqual([4, 2]);
    expect(g.reduceSum(a, [0, -1], false).shape).toEqual([1]);
    expect(g.transpose(a, [2, 0, 1]).shape).toEqual([4, 2, 1]);
    expect(g.gather(g.input('emb', [10, 6]), g.input('ids', [2, 3], 'int64')).shape).toEqual([2, 3, 6]);
  });

  it('rejects mismatched shapes and types with a MageError', () => {
    const g = createGraph();
    const a = g.input('a', [2, 3]);
    for (const bad of [
      () => g.add(a, g.input('b', [4])),
      () => g.matmul(a, g.input('c', [2, 3])),
      () => g.reshape(a, [5]),
      () => g.add(a, g.input('d', [2, 3], 'float64')),
      () => g.slice(a, 1, 2, 5),
      () => g.input('a', [1]),
    ]) {
      expect(bad).toThrow();
      try {
        bad();
      } catch (e) {
        expect(MageError.isInstance(e)).toBe(true);
      }
    }
  });
});
