/**
 * Seeded, splittable random numbers (xoshiro128** seeded through a string hash).
 *
 * Every stream has a `key` (for example `"42/group-3/slot-1"`). `split(label)` derives a child stream
 * from the parent's *key*, not from its position, so derived streams are the same whatever order or
 * amount of drawing happened before: per-group, per-slot and per-opponent randomness is reproducible
 * across runs and independent of scheduling.
 */

import { InvalidArgumentError, type Rng, type RngState } from '@mage-rl/spec';

export type { Rng, RngState } from '@mage-rl/spec';

/** 32-bit FNV-1a over UTF-16 code units, then mixed; two different salts give 64 bits of seed. */
function hashString(text: string, salt: number): number {
  let h = (0x811c9dc5 ^ salt) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return splitmix32(h);
}

function splitmix32(x: number): number {
  x = (x + 0x9e3779b9) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

function seedState(key: string): [number, number, number, number] {
  const s: [number, number, number, number] = [
    hashString(key, 0x1234567),
    hashString(key, 0x89abcde),
    hashString(key, 0x2468ace),
    hashString(key, 0x13579bd),
  ];
  if ((s[0] | s[1] | s[2] | s[3]) === 0) s[0] = 1;
  return s;
}

const rotl = (x: number, k: number): number => ((x << k) | (x >>> (32 - k))) >>> 0;

class Xoshiro128 implements Rng {
  readonly key: string;
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(key: string, s: readonly [number, number, number, number]) {
    this.key = key;
    [this.a, this.b, this.c, this.d] = s;
  }

  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.b << 9) >>> 0;
    this.c = (this.c ^ this.a) >>> 0;
    this.d = (this.d ^ this.b) >>> 0;
    this.b = (this.b ^ this.c) >>> 0;
    this.a = (this.a ^ this.d) >>> 0;
    this.c = (this.c ^ t) >>> 0;
    this.d = rotl(this.d, 11);
    return result;
  }

  next(): number {
    const hi = this.nextUint32() >>> 5; // 27 bits
    const lo = this.nextUint32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  int(n: number): number {
    if (!Number.isInteger(n) || n <= 0) {
      throw new InvalidArgumentError(`rng.int(n) needs a positive integer n, got ${n}.`, { context: { n } });
    }
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new InvalidArgumentError('rng.pick() got an empty list.');
    return items[this.int(items.length)] as T;
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const tmp = items[i] as T;
      items[i] = items[j] as T;
      items[j] = tmp;
    }
    return items;
  }

  weighted(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) {
      if (!(w >= 0) || !Number.isFinite(w)) {
        throw new InvalidArgumentError(`rng.weighted() needs finite non-negative weights, got ${w}.`);
      }
      total += w;
    }
    if (total <= 0) throw new InvalidArgumentError('rng.weighted() needs a positive total weight.');
    let r = this.next() * total;
    for (const [i, w] of weights.entries()) {
      r -= w;
      if (r < 0) return i;
    }
    // Floating-point slack: return the last index with positive weight.
    return weights.findLastIndex((w) => w > 0);
  }

  split(label: string | number): Rng {
    const key = `${this.key}/${label}`;
    return new Xoshiro128(key, seedState(key));
  }

  getState(): RngState {
    return { key: this.key, s: [this.a, this.b, this.c, this.d] };
  }
}

/** A stream for `seed`. Equal seeds give equal streams in every run and on every machine. */
export function createRng(seed: number | string): Rng {
  if (typeof seed === 'number' && !Number.isFinite(seed)) {
    throw new InvalidArgumentError(`A seed must be a finite number or a string, got ${seed}.`);
  }
  const key = String(seed);
  return new Xoshiro128(key, seedState(key));
}

/** Continue a stream from `getState()`. */
export function restoreRng(state: RngState): Rng {
  const s = state.s;
  if (!Array.isArray(s) || s.length !== 4 || s.some((x) => !Number.isInteger(x) || x < 0 || x > 0xffffffff)) {
    throw new InvalidArgumentError('restoreRng() got a malformed state.', { context: { state } });
  }
  return new Xoshiro128(state.key, s);
}
