import { describe, expect, it } from 'vitest';
import { createGraph } from '../graph/graph';
import { serializeGraph } from '../graph/serialize';
import { createLocalRunner } from './runner';
import { createSessionCache } from './session-cache';

const MiB = 2 ** 20;

describe('session cache', () => {
  it('evicts past the session count and past the byte budget, never the session being loaded', () => {
    const cache = createSessionCache({ maxSessions: 3, maxBytes: 1000 * MiB });
    expect(cache.admit('a', MiB)).toEqual([]);
    expect(cache.admit('b', MiB)).toEqual([]);
    expect(cache.admit('c', MiB)).toEqual([]);
    cache.touch('a');
    expect(cache.admit('d', MiB)).toEqual(['b']); // count: the least recently used of equal sizes
    expect(cache.admit('huge', 2000 * MiB)).toEqual(['c', 'a', 'd']); // bytes: all others, not itself
    expect(cache.size).toBe(1);
    expect(cache.bytes).toBe(2000 * MiB);
    cache.remove('huge');
    expect(cache.bytes).toBe(0);
  });

  it('evicts large sessions before small ones, so a cycle larger than the budget keeps its small sessions', () => {
    const cache = createSessionCache({ maxSessions: 64, maxBytes: 800 * MiB });
    // A mini-batch's buckets in the same order every time: six small, two large.
    const cycle: [string, number][] = [
      ['s1', 20 * MiB],
      ['s2', 30 * MiB],
      ['s3', 40 * MiB],
      ['s4', 50 * MiB],
      ['s5', 60 * MiB],
      ['s6', 70 * MiB],
      ['l1', 300 * MiB],
      ['l2', 500 * MiB],
    ];
    let loads = 0;
    for (let round = 0; round < 5; round++) {
      for (const [key, bytes] of cycle) {
        if (cache.has(key)) cache.touch(key);
        else {
          loads++;
          cache.admit(key, bytes);
        }
        expect(cache.bytes).toBeLessThanOrEqual(800 * MiB);
      }
    }
    // The first round loads all 8; later rounds reload only the two large sessions, which do not fit
    // together (LRU, evicting the least recently used, would evict and reload the small ones as well).
    expect(loads).toBe(8 + 4 * 2);
  });

  it('keeps a runner within its byte budget', async () => {
    const g = createGraph();
    g.output('y', g.add(g.input('x', [2]), g.input('x2', [2])));
    const model = serializeGraph(g);
    const runner = createLocalRunner({ maxSessionBytes: 10 * MiB });
    await runner.load('a', () => model, { bytes: 6 * MiB });
    await runner.load('b', () => model, { bytes: 6 * MiB });
    expect(runner.has('a')).toBe(false);
    expect(runner.has('b')).toBe(true);
    await runner.load('c', () => model, { bytes: MiB });
    expect(runner.has('b')).toBe(true);
    await expect(runner.load('bad', () => new Uint8Array([1, 2, 3]), { bytes: MiB })).rejects.toThrow();
    expect(runner.has('bad')).toBe(false);
    await runner.dispose();
  });
});
