/** A seeded, splittable random stream (core's `createRng` makes one; see its module comment). */

export interface RngState {
  readonly key: string;
  readonly s: readonly [number, number, number, number];
}

export interface Rng {
  /** The derivation path of this stream. */
  readonly key: string;
  /** Uniform 32-bit unsigned integer. */
  nextUint32(): number;
  /** Uniform float in [0, 1) with 53 bits of randomness. */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Uniform element. Throws on an empty list. */
  pick<T>(items: readonly T[]): T;
  /** Fisher–Yates shuffle in place; returns the same array. */
  shuffle<T>(items: T[]): T[];
  /** Index drawn with probability proportional to `weights` (non-negative, positive sum). */
  weighted(weights: readonly number[]): number;
  /** A child stream derived from this stream's key and `label`. */
  split(label: string | number): Rng;
  /** Serialisable state; `restoreRng(state)` continues exactly here. */
  getState(): RngState;
}
