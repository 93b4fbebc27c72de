import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRng, restoreRng } from './rng';

describe('rng', () => {
  it('is reproducible and pinned across machines', () => {
    const a = createRng(42);
    const b = createRng(42);
    const xs = Array.from({ length: 5 }, () => a.nextUint32());
    expect(Array.from({ length: 5 }, () => b.nextUint32())).toEqual(xs);
    // Golden values: changing the generator changes every seeded run; do it on purpose only.
    expect(xs).toMatchInlineSnapshot(`
      [
        1642744718,
        522408868,
        1499717921,
        3452531733,
        1043743475,
      ]
    `);
  });

  it('derives child streams from keys, independent of draws made before', () => {
    const a = createRng(7);
    const b = createRng(7);
    for (let i = 0; i < 100; i++) b.next();
    expect(a.split('group-1').next()).toBe(b.split('group-1').next());
    expect(a.split('group-1').next()).not.toBe(a.split('group-2').next());
    expect(a.split('x').split('y').key).toBe('7/x/y');
  });

  it('restores from state', () => {
    const a = createRng('s');
    a.next();
    const state = JSON.parse(JSON.stringify(a.getState()));
    const b = restoreRng(state);
    expect(b.next()).toBe(a.next());
    expect(() =>
      restoreRng({ key: 'k', s: [1, 2, 3] as unknown as [number, number, number, number] }),
    ).toThrow();
  });

  it('stays in range', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 1000 }), (seed, n) => {
        const r = createRng(seed);
        for (let i = 0; i < 20; i++) {
          const x = r.next();
          const k = r.int(n);
          if (!(x >= 0 && x < 1 && Number.isInteger(k) && k >= 0 && k < n)) return false;
        }
        return true;
      }),
    );
  });

  it('samples weights proportionally and shuffles to a permutation', () => {
    const r = createRng(1);
    const counts = [0, 0, 0];
    for (let i = 0; i < 30_000; i++) counts[r.weighted([0.3, 0.3, 0.4])]!++;
    expect(counts[2]! / 30_000).toBeCloseTo(0.4, 1);
    expect(r.weighted([0, 1])).toBe(1);
    expect(() => r.weighted([0, 0])).toThrow();
    expect(
      r
        .shuffle([1, 2, 3, 4, 5])
        .slice()
        .sort((x, y) => x - y),
    ).toEqual([1, 2, 3, 4, 5]);
  });
});
