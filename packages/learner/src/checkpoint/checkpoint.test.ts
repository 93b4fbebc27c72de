import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointError, createRng } from '@mage-rl/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createAdamW } from '../optim/adamw';
import { checkCheckpointTensors, type LoadedTensor, loadCheckpoint, saveCheckpoint } from './checkpoint';

const root = await mkdtemp(join(tmpdir(), 'mage-ckpt-'));
afterAll(() => rm(root, { recursive: true, force: true }));

describe('checkpoints', () => {
  it('round-trips weights, optimizer state, RNG state, step and metadata', async () => {
    const params = new Map([['w', Float32Array.from([1, 2, 3, 4])]]);
    const opt = createAdamW({ lr: 0.01 });
    opt.step(params, new Map([['w', Float32Array.from([0.1, -0.2, 0.3, -0.4])]]));
    const rng = createRng(9);
    rng.next();
    const dir = join(root, 'ckpt');
    await saveCheckpoint(dir, {
      weights: new Map([['w', { data: params.get('w') as Float32Array, shape: [2, 2] }]]),
      optimizer: opt.state,
      rng: rng.getState(),
      step: 7,
      metadata: { note: 'hello' },
    });
    const loaded = await loadCheckpoint(dir);
    expect(loaded.step).toBe(7);
    expect(loaded.metadata).toEqual({ note: 'hello' });
    expect(loaded.rng).toEqual(rng.getState());
    expect(Array.from(loaded.weights.get('w')?.data ?? [])).toEqual(
      Array.from(params.get('w') as Float32Array),
    );
    expect(loaded.weights.get('w')?.shape).toEqual([2, 2]);
    expect(loaded.optimizer?.step).toBe(1);
    expect(Array.from(loaded.optimizer?.v.get('w') ?? [])).toEqual(
      Array.from(opt.state.v.get('w') as Float32Array),
    );
  });

  it('replaces an existing checkpoint atomically and leaves no temporary files', async () => {
    const dir = join(root, 'again');
    for (const step of [1, 2]) {
      await saveCheckpoint(dir, {
        weights: new Map([['w', { data: Float32Array.from([step]), shape: [1] }]]),
        step,
      });
    }
    expect((await loadCheckpoint(dir)).step).toBe(2);
    expect((await readdir(root)).filter((f) => f.includes('.tmp-') || f.includes('.old-'))).toEqual([]);
  });

  it('a truncated weights file fails with a CheckpointError', async () => {
    const dir = join(root, 'broken');
    await saveCheckpoint(dir, {
      weights: new Map([['w', { data: new Float32Array(64), shape: [64] }]]),
      step: 1,
    });
    const { readFile } = await import('node:fs/promises');
    const bytes = await readFile(join(dir, 'model.safetensors'));
    await writeFile(join(dir, 'model.safetensors'), bytes.subarray(0, bytes.length - 10));
    await expect(loadCheckpoint(dir)).rejects.toMatchObject({ name: 'CheckpointError' });
    await expect(loadCheckpoint(join(root, 'missing'))).rejects.toMatchObject({ name: 'CheckpointError' });
  });
});

describe('checkCheckpointTensors', () => {
  const specs = [{ name: 'w', shape: [2, 3] }];
  const save = async (name: string, shape: number[]) => {
    const dir = join(root, name);
    await saveCheckpoint(dir, { weights: new Map([['w', { data: new Float32Array(6), shape }]]), step: 1 });
    return dir;
  };

  it('accepts the exact name, dtype and shape', async () => {
    const dir = await save('exact', [2, 3]);
    const weights = (await loadCheckpoint(dir)).weights;
    expect(() => checkCheckpointTensors(dir, weights, specs)).not.toThrow();
  });

  it('refuses a transposed matrix with the same element count, naming file, tensor and shapes', async () => {
    const dir = await save('transposed', [3, 2]);
    const weights = (await loadCheckpoint(dir)).weights;
    expect(() => checkCheckpointTensors(dir, weights, specs)).toThrow(CheckpointError);
    expect(() => checkCheckpointTensors(dir, weights, specs)).toThrow(
      /model\.safetensors: tensor 'w' has shape \[3, 2\]; the model config needs F32 \[2, 3\]/,
    );
  });

  it('refuses a missing tensor and another dtype', async () => {
    const dir = await save('other-name', [2, 3]);
    const weights = (await loadCheckpoint(dir)).weights;
    expect(() => checkCheckpointTensors(dir, weights, [{ name: 'u', shape: [2, 3] }])).toThrow(
      /tensor 'u' is missing/,
    );
    const f16 = new Map([['w', { ...(weights.get('w') as LoadedTensor), dtype: 'F16' as const }]]);
    expect(() => checkCheckpointTensors(dir, f16, specs)).toThrow(/is stored as F16, not F32/);
  });
});
