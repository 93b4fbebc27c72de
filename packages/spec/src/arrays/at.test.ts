import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors/mage-error';
import { at } from './at';

describe('at', () => {
  it('reads in-range elements of lists and typed arrays', () => {
    expect(at(['a', 'b'], 1)).toBe('b');
    expect(at(new Float64Array([0.5, 1.5]), 0)).toBe(0.5);
  });

  it('throws on indices outside the list', () => {
    expect(() => at([1, 2], 2)).toThrow(InvalidArgumentError);
    expect(() => at([1, 2], -1)).toThrow(InvalidArgumentError);
    expect(() => at([1, 2], 0.5)).toThrow(InvalidArgumentError);
  });
});
