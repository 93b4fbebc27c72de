import { ConfigError, type MageError } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { memoryBudgetOf, parseByteSize } from './byte-size';
import { resolveTrainConfig } from './resolve-config';

const GIB = 2 ** 30;

describe('parseByteSize', () => {
  it('reads byte counts and sizes with decimal or binary units', () => {
    expect(parseByteSize(8589934592)).toBe(8 * GIB);
    expect(parseByteSize('8589934592')).toBe(8 * GIB);
    expect(parseByteSize('6GiB')).toBe(6 * GIB);
    expect(parseByteSize('6 gib')).toBe(6 * GIB);
    expect(parseByteSize('8GB')).toBe(8e9);
    expect(parseByteSize('1.5GiB')).toBe(1.5 * GIB);
    expect(parseByteSize('512MiB')).toBe(512 * 2 ** 20);
    expect(parseByteSize('2TB')).toBe(2e12);
  });

  it('refuses what is not a size', () => {
    for (const bad of ['', 'lots', '8G', '-3GB', '6 GiB extra', 'GiB', -1, Number.NaN, true, null, {}]) {
      expect(parseByteSize(bad)).toBeUndefined();
    }
  });
});

describe('memory.budget', () => {
  it('defaults to 6GiB in every preset, kept as written', () => {
    for (const preset of ['paper', 'laptop', 'smoke']) {
      const config = resolveTrainConfig({}, { preset });
      expect(config.memory).toEqual({ budget: '6GiB' });
      expect(memoryBudgetOf(config)).toBe(6 * GIB);
    }
  });

  it('takes a size string or a byte count', () => {
    expect(resolveTrainConfig({ memory: { budget: '16GB' } }).memory.budget).toBe('16GB');
    expect(memoryBudgetOf(resolveTrainConfig({ memory: { budget: '16GB' } }))).toBe(16e9);
    expect(memoryBudgetOf(resolveTrainConfig({ memory: { budget: 4 * GIB } }))).toBe(4 * GIB);
  });

  it('refuses bad budgets with a ConfigError naming memory.budget', () => {
    const cases: [unknown, RegExp][] = [
      [0, /memory\.budget: must be a size from 1\.00 GiB to 1024\.00 GiB.*read as 0\.0 MiB \(got 0\)/],
      [-GIB, /not a size \(got -1073741824\)/],
      ['lots', /such as "6GiB" or "8GB"; read as not a size \(got "lots"\)/],
      ['-2GiB', /not a size/],
      ['1MB', /read as 1\.0 MiB/],
      ['512MiB', /read as 512\.0 MiB/],
      ['2TiB', /read as 2048\.00 GiB/],
      [true, /memory\.budget must be a number or a string, got true/],
    ];
    for (const [budget, message] of cases) {
      let error: unknown;
      try {
        resolveTrainConfig({ memory: { budget } as never });
      } catch (e) {
        error = e;
      }
      expect(error, String(budget)).toBeInstanceOf(ConfigError);
      expect((error as MageError).context.path).toBe('memory.budget');
      expect((error as MageError).message).toMatch(message);
    }
  });

  it('has no keys beside budget', () => {
    expect(() => resolveTrainConfig({ memory: { limit: '4GiB' } } as never)).toThrow(
      /Unknown key\(s\) 'limit' in memory; known keys: budget/,
    );
  });
});
