import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_SESSION_BYTES } from '../runtime/session-cache';
import { MAX_GENERATE_ROWS } from '../sampling/generator';
import { DEFAULT_PREFIX_CACHE_BYTES } from '../sampling/prefix-cache';
import { memoryLimitsOf, REFERENCE_MEMORY_BUDGET } from './memory-budget';

const GIB = 2 ** 30;
const MIB = 2 ** 20;

describe('memoryLimitsOf', () => {
  it('gives exactly the defaults (1 GiB of sessions, 256 MiB of prefix cache, 64 rows) at 6 GiB', () => {
    expect(REFERENCE_MEMORY_BUDGET).toBe(6 * GIB);
    expect(memoryLimitsOf(6 * GIB)).toEqual({
      sessionBytes: DEFAULT_MAX_SESSION_BYTES,
      prefixCacheBytes: DEFAULT_PREFIX_CACHE_BYTES,
      generateRows: MAX_GENERATE_ROWS,
    });
    expect(memoryLimitsOf(6 * GIB)).toEqual({
      sessionBytes: GIB,
      prefixCacheBytes: 256 * MIB,
      generateRows: 64,
    });
  });

  it('shrinks every size with a smaller budget and grows it with a larger one', () => {
    const small = memoryLimitsOf(3 * GIB);
    expect(small).toEqual({ sessionBytes: 512 * MIB, prefixCacheBytes: 128 * MIB, generateRows: 32 });
    const large = memoryLimitsOf(24 * GIB);
    expect(large).toEqual({ sessionBytes: 4 * GIB, prefixCacheBytes: GIB, generateRows: 256 });
  });

  it('rounds rows down to a power of two and keeps every size above its floor', () => {
    expect(memoryLimitsOf(5 * GIB).generateRows).toBe(32);
    expect(memoryLimitsOf(6e9).generateRows).toBe(32);
    const tiny = memoryLimitsOf(64 * MIB);
    expect(tiny).toEqual({ sessionBytes: 64 * MIB, prefixCacheBytes: 16 * MIB, generateRows: 4 });
    for (const budget of [GIB, 2 * GIB, 7.5 * GIB, 100 * GIB]) {
      const l = memoryLimitsOf(budget);
      expect(Number.isInteger(l.sessionBytes) && Number.isInteger(l.prefixCacheBytes)).toBe(true);
      expect(Math.log2(l.generateRows) % 1).toBe(0);
    }
  });

  it('refuses a budget that is not a positive byte count', () => {
    for (const bad of [0, -GIB, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => memoryLimitsOf(bad)).toThrow(/positive byte count/);
    }
  });
});
