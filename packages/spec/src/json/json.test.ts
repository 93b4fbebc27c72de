import { describe, expect, it } from 'vitest';
import { isJsonSafe } from './json';

describe('isJsonSafe', () => {
  it('accepts plain JSON values', () => {
    expect(isJsonSafe({ a: [1, 'x', null, true, { b: 2.5 }] })).toBe(true);
  });
  it('rejects what JSON would change', () => {
    expect(isJsonSafe({ a: undefined })).toBe(false);
    expect(isJsonSafe(Number.NaN)).toBe(false);
    expect(isJsonSafe(new Map())).toBe(false);
    expect(isJsonSafe(() => 1)).toBe(false);
    const cyc: Record<string, unknown> = {};
    cyc.self = cyc;
    expect(isJsonSafe(cyc)).toBe(false);
  });
  it('accepts shared (non-cyclic) references', () => {
    const shared = { x: 1 };
    expect(isJsonSafe({ a: shared, b: shared })).toBe(true);
  });
});
