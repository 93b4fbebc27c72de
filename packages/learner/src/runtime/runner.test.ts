import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { MageError } from '@mage-rl/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createGraph } from '../graph/graph';
import { serializeGraph } from '../graph/serialize';
import { createLocalRunner, createWorkerRunner, type GraphRunner } from './runner';
import {
  SESSION_LOAD_CHANNEL,
  SESSION_RUN_CHANNEL,
  type SessionLoadEvent,
  type SessionRunEvent,
} from './runner-events';

/** x ← tanh(x·W) repeated: enough work to keep onnxruntime busy for a while. */
function heavyModel(n: number, repeats: number): Uint8Array {
  const g = createGraph();
  const w = g.input('w', [n, n]);
  let x = g.input('x', [n, n]);
  for (let i = 0; i < repeats; i++) x = g.tanh(g.matmul(x, w));
  g.output('y', x);
  g.output('k', g.reshape(x, [1, 1, n, n]));
  return serializeGraph(g);
}

const runners: [string, GraphRunner][] = [
  ['local', createLocalRunner()],
  ['worker', createWorkerRunner()],
];
afterAll(async () => {
  for (const [, r] of runners) await r.dispose();
});

describe.each(runners)('%s runner', (_name, runner) => {
  it('runs with persistent feeds and scatters outputs into persistent buffers', async () => {
    const n = 4;
    await runner.load('m', () => heavyModel(n, 1));
    await runner.setPersistent({
      w: { data: Float32Array.from({ length: n * n }, (_, i) => (i % (n + 1) === 0 ? 1 : 0)), dims: [n, n] },
    });
    await runner.allocate('buf', [1, 1, 10, n]);
    const x = Float32Array.from({ length: n * n }, (_, i) => i / 10);
    const out = await runner.run(
      'm',
      { x: { data: x, dims: [n, n] } },
      { fetches: ['y'], scatter: [{ output: 'k', target: 'buf', starts: [3] }] },
    );
    expect(Object.keys(out)).toEqual(['y']);
    expect((out.y as { data: Float32Array }).data[5]).toBeCloseTo(Math.tanh(0.5), 6);
    // Read the buffer back through an identity graph.
    const g = createGraph();
    g.output('out', g.identity(g.input('buf', [1, 1, 10, n])));
    await runner.load('read', () => serializeGraph(g));
    const buf = (await runner.run('read', {})).out?.data as Float32Array;
    expect(buf[3 * n + 1]).toBeCloseTo(Math.tanh(0.1), 6);
    expect(buf[2 * n + 1]).toBe(0);
  });

  it('publishes a timing event per session created and per run, none for a session already loaded', async () => {
    const loads: SessionLoadEvent[] = [];
    const runs: SessionRunEvent[] = [];
    const onLoad = (e: unknown) => loads.push(e as SessionLoadEvent);
    const onRun = (e: unknown) => runs.push(e as SessionRunEvent);
    subscribe(SESSION_LOAD_CHANNEL, onLoad);
    subscribe(SESSION_RUN_CHANNEL, onRun);
    try {
      const n = 3;
      await runner.load('timed', () => heavyModel(n, 1), { bytes: 1234 });
      await runner.load('timed', () => heavyModel(n, 1));
      await runner.setPersistent({ w: { data: new Float32Array(n * n), dims: [n, n] } });
      for (let i = 0; i < 2; i++)
        await runner.run('timed', { x: { data: new Float32Array(n * n), dims: [n, n] } });
    } finally {
      unsubscribe(SESSION_LOAD_CHANNEL, onLoad);
      unsubscribe(SESSION_RUN_CHANNEL, onRun);
    }
    expect(loads.map((e) => [e.key, e.bytes, e.evicted])).toEqual([['timed', 1234, 0]]);
    expect(loads[0]?.compileMs).toBeGreaterThan(0);
    expect(runs.map((e) => e.key)).toEqual(['timed', 'timed']);
    expect(runs.every((e) => e.ms >= 0)).toBe(true);
  });

  it('allocates zeroed buffers of any size in the memory of a larger earlier one', async () => {
    const read = (name: string, dims: number[]) => {
      const g = createGraph();
      g.output('out', g.identity(g.input(name, dims)));
      return serializeGraph(g);
    };
    await runner.allocate('grow', [2, 1, 8, 4]);
    await runner.load('fill', () => heavyModel(4, 1));
    await runner.setPersistent({ w: { data: new Float32Array(16).fill(1), dims: [4, 4] } });
    await runner.run(
      'fill',
      { x: { data: new Float32Array(16).fill(1), dims: [4, 4] } },
      { scatter: [{ output: 'k', target: 'grow', starts: [0, 4], rows: [1, 0] }] },
    );
    await runner.load('read-big', () => read('grow', [2, 1, 8, 4]));
    const big = (await runner.run('read-big', {})).out?.data as Float32Array;
    // Output row 0 went to buffer row 1 (positions 0..3), nothing else was written.
    for (const v of big.subarray(32, 48)) expect(v).toBeCloseTo(Math.tanh(4), 5);
    expect(big.subarray(0, 32).every((v) => v === 0)).toBe(true);
    await runner.allocate('grow', [1, 1, 6, 4]);
    await runner.load('read-small', () => read('grow', [1, 1, 6, 4]));
    const small = (await runner.run('read-small', {})).out ?? { data: new Float32Array(1), dims: [] };
    expect(small.dims).toEqual([1, 1, 6, 4]);
    expect((small.data as Float32Array).every((v) => v === 0)).toBe(true);
  });

  it('reports a missing input as a MageError', async () => {
    await runner.load('m2', () => heavyModel(3, 1));
    const e = await runner.run('m2', {}).catch((err: unknown) => err);
    expect(MageError.isInstance(e)).toBe(true);
    const bad = await runner.load('bad', () => Uint8Array.from([1, 2, 3])).catch((err: unknown) => err);
    expect(MageError.isInstance(bad) && bad.code).toBe('MODEL_FORMAT');
  });
});

describe('worker runner', () => {
  it('keeps the main event loop responsive while a session runs', async () => {
    const runner = runners[1]?.[1] as GraphRunner;
    const n = 384;
    await runner.load('heavy', () => heavyModel(n, 40));
    await runner.setPersistent({ w: { data: new Float32Array(n * n).fill(1 / n), dims: [n, n] } });
    let ticked = false;
    const run = runner.run(
      'heavy',
      { x: { data: new Float32Array(n * n).fill(0.5), dims: [n, n] } },
      { fetches: ['y'] },
    );
    setTimeout(() => {
      ticked = true;
    }, 0);
    let tickedBeforeDone = false;
    await run.then(() => {
      tickedBeforeDone = ticked;
    });
    expect(tickedBeforeDone).toBe(true);
  });

  it('copies persistent tensors by default and takes their memory with `transfer`, with the same results', async () => {
    const runner = runners[1]?.[1] as GraphRunner;
    const n = 4;
    await runner.load('transfer', () => heavyModel(n, 2));
    const x = { data: Float32Array.from({ length: n * n }, (_, i) => i / 16), dims: [n, n] };
    const weights = () => Float32Array.from({ length: n * n }, (_, i) => Math.sin(i));
    const y = async () => (await runner.run('transfer', { x }, { fetches: ['y'] })).y?.data as Float32Array;
    const copied = weights();
    await runner.setPersistent({ w: { data: copied, dims: [n, n] } });
    const fromCopy = await y();
    expect(copied.byteLength).toBe(n * n * 4);
    // Two tensors over one buffer: the buffer is transferred once and both arrive.
    const shared = new Float32Array(2 * n * n);
    shared.set(weights());
    const [w, spare] = [shared.subarray(0, n * n), shared.subarray(n * n)];
    await runner.setPersistent(
      { w: { data: w, dims: [n, n] }, spare: { data: spare, dims: [n, n] } },
      { transfer: true },
    );
    expect(w.byteLength).toBe(0);
    expect(shared.buffer.byteLength).toBe(0);
    expect(Array.from(await y())).toEqual(Array.from(fromCopy));
  });
});
