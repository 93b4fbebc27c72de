/** Option parsing shared by `solve`, `best-response` and `match`. */

import { ConfigError } from '@mage-rl/core';

/** A positive integer option, or a `ConfigError` naming the flag and the bad value. */
export function positiveInt(value: string, flag: string, max = 100_000_000): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1 || n > max) {
    throw new ConfigError(`${flag} must be an integer in 1..${max}, got '${value}'.`, { path: flag });
  }
  return n;
}

/** One of `allowed`, or a `ConfigError` listing them. */
export function oneOf<T extends string>(value: string, flag: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(`${flag} must be one of ${allowed.join(', ')}, got '${value}'.`, { path: flag });
  }
  return value as T;
}
