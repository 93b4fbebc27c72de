import { describe, expect, it } from 'vitest';
import * as api from './index';
import * as internals from './internals';

describe('the public index', () => {
  it('is the documented API: at most 25 runtime names, none of them a building block', () => {
    const names = Object.keys(api);
    expect(names.length).toBeLessThanOrEqual(25);
    expect(names).toContain('createTrainer');
    expect(names.filter((name) => name in internals)).toEqual([]);
  });
});
