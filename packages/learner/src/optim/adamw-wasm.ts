/**
 * AdamW's moments and kernels in WebAssembly with 128-bit SIMD (four float32s per instruction; source
 * `adamw.wat`, its compiled bytes below, checked by the test). The moments live in the module's memory
 * (the optimizer state's `m`/`v` maps hold views of it); a step copies a tensor's gradient and weights
 * in and the weights out. A step over mage-tiny's 0.74 M parameters took 1.2 ms against 5.3 ms in
 * JavaScript (architecture/learner.md, "Optimizer").
 */

import { InvalidArgumentError } from '@mage-rl/core';

export const ADAMW_WASM =
  'AGFzbQEAAAABFwJgDX9/f39/fX19fX19fX0AYAJ/fwF8AwMCAAEFAwEAAQcfAwZtZW1vcnkCAAVhZGFtdwAACnN1bVNxdWFyZXMAAQriAgLgAQILewJ/IAX9EyENIAb9EyEOIAf9EyEPIAj9EyEQIAn9EyERIAr9EyESIAv9EyETIAz9EyEUIARBBHQhGQJAA0AgGCAZTw0BIAEgGGr9AAQAIRUgDSACIBhq/QAEAP3mASAOIBX95gH95AEhFiAPIAMgGGr9AAQA/eYBIBAgFSAV/eYB/eYB/eQBIRcgAiAYaiAW/QsEACADIBhqIBf9CwQAIAAgGGogESAAIBhq/QAEAP3mASASIBb95gEgF/3jASAT/eYBIBT95AH95wH95QH9CwQAIBhBEGohGAwACwsLfgIDewJ/IAFBBHQhBgJAA0AgBSAGTw0BIAAgBWr9AAQAIQIgAyAC/V8gAv1f/fIB/fABIQMgAiAC/Q0ICQoLDA0ODwABAgMEBQYHIQIgBCAC/V8gAv1f/fIB/fABIQQgBUEQaiEFDAALCyADIAT98AEhAyAD/SEAIAP9IQGgCw==';

/** The part of the WebAssembly API used here (the package's type libraries do not declare it). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { readonly exports: unknown };
};

/** Bytes of a WebAssembly memory page. */
const PAGE = 65536;

interface Kernels {
  readonly memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  adamw(
    w: number,
    g: number,
    m: number,
    v: number,
    n4: number,
    b1: number,
    c1: number,
    b2: number,
    c2: number,
    decay: number,
    stepSize: number,
    sib: number,
    eps: number,
  ): void;
  sumSquares(p: number, n4: number): number;
}

/** The module's exports as the kernels, checked. */
function kernelsOf(exports: unknown): Kernels {
  const { memory, adamw, sumSquares } = (exports ?? {}) as Partial<Record<keyof Kernels, unknown>>;
  const isMemory = typeof memory === 'object' && memory !== null && 'buffer' in memory && 'grow' in memory;
  if (!isMemory || typeof adamw !== 'function' || typeof sumSquares !== 'function') {
    throw new Error('AdamW kernels: the WebAssembly module does not export memory, adamw and sumSquares.');
  }
  return {
    memory: memory as Kernels['memory'],
    adamw: adamw as Kernels['adamw'],
    sumSquares: sumSquares as Kernels['sumSquares'],
  };
}

/** One AdamW step's constants (bias corrections and gradient scale folded in; `adamw.wat`). */
export interface KernelConstants {
  readonly b1: number;
  readonly c1: number;
  readonly b2: number;
  readonly c2: number;
  readonly decay: number;
  readonly stepSize: number;
  readonly sib: number;
  readonly eps: number;
}

/** A tensor's place in the module's memory: its moments and its gradient (byte offsets). */
interface Slot {
  readonly n: number;
  readonly m: number;
  readonly v: number;
  readonly g: number;
}

/** Bytes of `n` float32s rounded up to whole groups of four. */
const padded = (n: number): number => Math.ceil(n / 4) * 16;

/**
 * The moments of the tensors it holds, in one WebAssembly memory of at most `maxBytes`; `place` takes
 * the tensors that fit.
 */
export class WasmMoments {
  private readonly k: Kernels;
  private readonly slots = new Map<string, Slot>();
  /** Bytes in use (from offset 0). */
  private used = 0;
  /** Byte offset and capacity (values) of the weights' staging area. */
  private wOff = -1;
  private wCap = 0;

  constructor(private readonly maxBytes: number) {
    const module = new WebAssembly.Module(Buffer.from(ADAMW_WASM, 'base64'));
    this.k = kernelsOf(new WebAssembly.Instance(module).exports);
  }

  has(name: string): boolean {
    return this.slots.has(name);
  }

  /**
   * Gives the tensors of `sizes` not yet held a place if they fit, moving their moments from `m`/`v`
   * when these have them (a restored state), and points `m`/`v` at the held moments.
   */
  place(
    sizes: ReadonlyMap<string, number>,
    m: Map<string, Float32Array>,
    v: Map<string, Float32Array>,
  ): void {
    const fresh = [...sizes].filter(([name]) => !this.slots.has(name));
    if (fresh.length === 0) return;
    const moved = new Map<string, readonly [Float32Array | undefined, Float32Array | undefined]>();
    let used = this.used;
    const placed: [string, Slot][] = [];
    for (const [name, n] of fresh) {
      const bytes = 3 * padded(n);
      if (used + bytes + Math.max(this.wCap * 4, padded(n)) > this.maxBytes) continue;
      placed.push([name, { n, m: used, v: used + padded(n), g: used + 2 * padded(n) }]);
      moved.set(name, [m.get(name), v.get(name)]);
      used += bytes;
    }
    if (placed.length === 0) return;
    const wCap = Math.max(this.wCap, ...placed.map(([, s]) => Math.ceil(s.n / 4) * 4));
    // The staging area moves to the end: a larger one replaces the old, which stays unused.
    const wOff = wCap > this.wCap ? used : this.wOff;
    const end = wCap > this.wCap ? used + wCap * 4 : used;
    const grow = Math.ceil(end / PAGE) - this.k.memory.buffer.byteLength / PAGE;
    if (grow > 0) this.k.memory.grow(grow);
    for (const [name, slot] of placed) this.slots.set(name, slot);
    this.used = wCap > this.wCap ? end : used;
    this.wOff = wOff;
    this.wCap = wCap;
    // Growing detached the old views: every held tensor gets new ones.
    for (const [name, slot] of this.slots) {
      const prev = moved.get(name);
      const mv = this.view(slot.m, slot.n);
      const vv = this.view(slot.v, slot.n);
      if (prev !== undefined) {
        if (prev[0] !== undefined) mv.set(prev[0]);
        if (prev[1] !== undefined) vv.set(prev[1]);
      }
      m.set(name, mv);
      v.set(name, vv);
    }
  }

  /** Σ g² of a held tensor's gradient, copied in for `update`. */
  sumSquares(name: string, g: Float32Array): number {
    const s = this.slot(name);
    this.view(s.g, s.n).set(g);
    return this.k.sumSquares(s.g, Math.ceil(s.n / 4));
  }

  /** One AdamW step of a held tensor from the gradient `sumSquares` copied in; `w` in place. */
  update(name: string, w: Float32Array, c: KernelConstants): void {
    const s = this.slot(name);
    const staged = this.view(this.wOff, s.n);
    staged.set(w);
    this.k.adamw(
      this.wOff,
      s.g,
      s.m,
      s.v,
      Math.ceil(s.n / 4),
      c.b1,
      c.c1,
      c.b2,
      c.c2,
      c.decay,
      c.stepSize,
      c.sib,
      c.eps,
    );
    w.set(staged);
  }

  private slot(name: string): Slot {
    const s = this.slots.get(name);
    if (s === undefined) throw new InvalidArgumentError(`AdamW: no moments held for '${name}'.`);
    return s;
  }

  private view(offset: number, n: number): Float32Array {
    return new Float32Array(this.k.memory.buffer, offset, n);
  }
}
