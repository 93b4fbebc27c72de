import { readFileSync } from 'node:fs';
import { createRng } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import wabtInit from 'wabt';
import { type AdamWState, createAdamW } from './adamw';
import { ADAMW_WASM } from './adamw-wasm';

/** Random tensors of the given sizes (not all multiples of four: the kernels pad). */
function tensors(sizes: Record<string, number>, seed: string, scale = 1): Map<string, Float32Array> {
  const rng = createRng(seed);
  return new Map(
    Object.entries(sizes).map(([name, n]) => [
      name,
      Float32Array.from({ length: n }, () => (rng.next() - 0.5) * scale),
    ]),
  );
}

const copy = (m: ReadonlyMap<string, Float32Array>) =>
  new Map([...m].map(([k, v]) => [k, Float32Array.from(v)]));

const sizes = { 'embed.weight': 37, 'layer.0.norm.weight': 5, 'layer.0.q.weight': 64, 'lm.bias': 3 };

/** Runs `steps` AdamW steps with per-step gradients; returns the weights and the optimizer state. */
function train(
  wasmMomentBytes: number,
  steps: number,
  params = tensors(sizes, 'w'),
  state?: AdamWState,
): { params: Map<string, Float32Array>; state: AdamWState } {
  const opt = createAdamW({ lr: 0.01, weightDecay: 0.1, maxGradNorm: 2, wasmMomentBytes }, state);
  for (let t = 0; t < steps; t++) opt.step(params, tensors(sizes, `g${opt.state.step}`, 3), 0.5);
  return { params, state: opt.state };
}

function expectClose(a: ReadonlyMap<string, Float32Array>, b: ReadonlyMap<string, Float32Array>): void {
  expect([...a.keys()]).toEqual([...b.keys()]);
  for (const [name, x] of a) {
    const y = b.get(name) as Float32Array;
    expect(x.length).toBe(y.length);
    for (let i = 0; i < x.length; i++)
      expect(Math.abs((x[i] as number) - (y[i] as number))).toBeLessThan(2e-6);
  }
}

describe('AdamW in WebAssembly', () => {
  it('embeds the compiled bytes of adamw.wat', async () => {
    const wabt = await wabtInit();
    const source = readFileSync(new URL('./adamw.wat', import.meta.url), 'utf8');
    const module = wabt.parseWat('adamw.wat', source, { simd: true });
    expect(Buffer.from(module.toBinary({}).buffer).toString('base64')).toBe(ADAMW_WASM);
    module.destroy();
  });

  it('matches the JavaScript kernel step by step (moments, weights, clipping, decay)', () => {
    const js = train(0, 6);
    const wasm = train(2 ** 20, 6);
    expectClose(wasm.params, js.params);
    expectClose(wasm.state.m, js.state.m);
    expectClose(wasm.state.v, js.state.v);
    expect(wasm.state.step).toBe(6);
  });

  it('splits tensors between WebAssembly and JavaScript by the memory it may use', () => {
    // Room for the moments of the small tensors but not of the 64-value one.
    const split = train(3 * 64 * 4, 4);
    expectClose(split.params, train(0, 4).params);
    // The big tensor's moments are arrays of their own, the small ones' views of the module's memory.
    expect(split.state.m.get('layer.0.q.weight')?.buffer.byteLength).toBe(64 * 4);
    expect(split.state.m.get('embed.weight')?.buffer.byteLength).toBe(65536);
  });

  it('resumes from moments restored from a checkpoint, and takes tensors added later', () => {
    const whole = train(2 ** 20, 5);
    const first = train(2 ** 20, 2);
    const restored: AdamWState = {
      step: first.state.step,
      consecutiveSkips: 0,
      m: copy(first.state.m),
      v: copy(first.state.v),
    };
    const resumed = train(2 ** 20, 3, copy(first.params), restored);
    expectClose(resumed.params, whole.params);

    // A tensor first seen after some steps grows the memory; the earlier moments keep their values.
    const params = tensors({ a: 6 }, 'a');
    const opt = createAdamW({ lr: 0.1, maxGradNorm: Number.POSITIVE_INFINITY, wasmMomentBytes: 2 ** 20 });
    opt.step(params, tensors({ a: 6 }, 'ga'));
    const before = Float32Array.from(opt.state.m.get('a') as Float32Array);
    params.set('big', new Float32Array(40_000));
    opt.step(params, new Map([['big', new Float32Array(40_000).fill(1)]]));
    expect(Array.from(opt.state.m.get('a') as Float32Array)).toEqual(Array.from(before));
    expect(opt.state.m.get('big')?.[39_999]).toBeCloseTo(0.1, 6);
  });

  it('rejects moments of the wrong size', () => {
    const state: AdamWState = {
      step: 1,
      consecutiveSkips: 0,
      m: new Map([['w', new Float32Array(2)]]),
      v: new Map([['w', new Float32Array(2)]]),
    };
    const opt = createAdamW({ lr: 0.1 }, state);
    expect(() =>
      opt.step(new Map([['w', new Float32Array(3)]]), new Map([['w', new Float32Array(3)]])),
    ).toThrow(/moments of 'w'/);
  });
});
