/** Sizes in config files: a byte count, or a number with a unit (`"6GiB"`, `"8GB"`, `"512 MiB"`). */

import type { TrainConfig } from './schema';

/** Bytes per unit: decimal (kB, MB, GB, TB) and binary (KiB, MiB, GiB, TiB); case-insensitive. */
const UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

const SIZE = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-z]*)\s*$/i;

/**
 * The bytes of `value` (whole bytes, rounded down), or undefined when it is not a size: a finite
 * non-negative number, or a string of a number and an optional unit of `UNITS`.
 */
export function parseByteSize(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const m = SIZE.exec(value);
  if (m === null) return undefined;
  const unit = UNITS[(m[2] ?? '').toLowerCase() || 'b'];
  if (unit === undefined) return undefined;
  const bytes = Number(m[1]) * unit;
  return Number.isFinite(bytes) ? Math.floor(bytes) : undefined;
}

/** `bytes` for a message: GiB with two decimals from 1 GiB, else MiB. */
export function formatByteSize(bytes: number): string {
  return bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(2)} GiB` : `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

/** The bytes of a resolved config's `memory.budget`. */
export function memoryBudgetOf(config: Pick<TrainConfig, 'memory'>): number {
  return parseByteSize(config.memory.budget) as number;
}
