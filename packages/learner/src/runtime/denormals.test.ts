import { afterAll, describe, expect, it } from 'vitest';
import { createGraph } from '../graph/graph';
import { serializeGraph } from '../graph/serialize';
import { createLocalRunner, createWorkerRunner } from './runner';

// Its own file (own process): onnxruntime sets the flush mode of the creating thread only for the
// first session of a process, so the worker must create the first session here.
const worker = createWorkerRunner();
const local = createLocalRunner();
afterAll(async () => {
  await worker.dispose();
  await local.dispose();
});

const expModel = () => {
  const g = createGraph();
  g.output('y', g.exp(g.input('x', [2])));
  return serializeGraph(g);
};
const feeds = { x: { data: Float32Array.from([-100, 0]), dims: [2] } };

describe('denormal floats', () => {
  it('are flushed to zero by the worker runner, kept by the local runner and by JavaScript', async () => {
    await worker.load('exp', expModel);
    await local.load('exp', expModel);
    const flushed = (await worker.run('exp', feeds)).y?.data as Float32Array;
    const kept = (await local.run('exp', feeds)).y?.data as Float32Array;
    expect(flushed[0]).toBe(0);
    expect(flushed[1]).toBe(1);
    expect(kept[0]).toBeGreaterThan(0); // e^−100 ≈ 3.8e−44 is a float32 denormal
    expect(Number('5e-311') * 0.5).toBeGreaterThan(0); // the main thread's arithmetic is untouched
  });
});
