/**
 * A run's memory budget → the sizes the learner can choose: the estimated bytes of kept onnxruntime
 * sessions, the bytes of the prefix KV cache, and the rows one generation run holds. The rest of a run's
 * peak (weights, optimizer state, the runtime itself) follows from the model and cannot shrink. See
 * architecture/learner.md ("Memory before a run").
 */

import { InvalidArgumentError } from '@mage-rl/core';
import { DEFAULT_MAX_SESSION_BYTES, UNKNOWN_SESSION_BYTES } from '../runtime/session-cache';
import { MAX_GENERATE_ROWS } from '../sampling/generator';
import { DEFAULT_PREFIX_CACHE_BYTES } from '../sampling/prefix-cache';

const MIB = 2 ** 20;

/**
 * The budget the learner's defaults are sized for: 6 GiB, what an 8 GB laptop can give one run. It gives
 * exactly `DEFAULT_MAX_SESSION_BYTES` (1 GiB), `DEFAULT_PREFIX_CACHE_BYTES` (256 MiB) and
 * `MAX_GENERATE_ROWS` (64).
 */
export const REFERENCE_MEMORY_BUDGET = 6 * 2 ** 30;

/** The smallest derived sizes: one session of unknown size, 16 MiB of keys/values, 4 rows. */
const MIN_SESSION_BYTES = UNKNOWN_SESSION_BYTES;
const MIN_PREFIX_CACHE_BYTES = 16 * MIB;
const MIN_GENERATE_ROWS = 4;

/** What a learner keeps or runs at once under a memory budget. */
export interface MemoryLimits {
  /** Estimated bytes of kept sessions (the runner's `maxSessionBytes`). */
  readonly sessionBytes: number;
  /** Bytes of the prefix KV cache (the learner's `prefixCacheBytes`). */
  readonly prefixCacheBytes: number;
  /** Rows one prefill and decode run holds at most (the learner's `maxGenerateRows`). */
  readonly generateRows: number;
}

const floorPow2 = (n: number): number => 2 ** Math.floor(Math.log2(n));

/**
 * The sizes of a run with `budgetBytes` of memory, each a fixed share of the budget: sessions 1/6, the
 * prefix KV cache 1/24, and one generation row per 96 MiB, rounded down to a power of two (a chunk's
 * rows are padded to one). A smaller budget gives smaller caches and chunks, down to a floor of 64 MiB
 * of sessions, 16 MiB of cache and 4 rows; `REFERENCE_MEMORY_BUDGET` gives today's defaults exactly.
 */
export function memoryLimitsOf(budgetBytes: number): MemoryLimits {
  if (!Number.isFinite(budgetBytes) || budgetBytes <= 0) {
    throw new InvalidArgumentError(`A memory budget must be a positive byte count, got ${budgetBytes}.`);
  }
  const share = budgetBytes / REFERENCE_MEMORY_BUDGET;
  return {
    sessionBytes: Math.max(MIN_SESSION_BYTES, Math.floor(share * DEFAULT_MAX_SESSION_BYTES)),
    prefixCacheBytes: Math.max(MIN_PREFIX_CACHE_BYTES, Math.floor(share * DEFAULT_PREFIX_CACHE_BYTES)),
    generateRows: Math.max(MIN_GENERATE_ROWS, floorPow2(share * MAX_GENERATE_ROWS)),
  };
}
