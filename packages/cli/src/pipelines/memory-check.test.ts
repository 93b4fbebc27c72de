import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@mage-rl/core';
import { createMageTinyConfig, fromHfConfig } from '@mage-rl/learner';
import { afterAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../testing/cli.test-helper';
import { checkRunMemory, estimateRunMemory, modelConfigOf, SKIP_MEMORY_CHECK_ENV } from './memory-check';

const GB = 1e9;

/** Qwen3-0.6B's shape (its config.json, abridged). */
const QWEN3_06B = {
  model_type: 'qwen3',
  hidden_size: 1024,
  intermediate_size: 3072,
  num_hidden_layers: 28,
  num_attention_heads: 16,
  num_key_value_heads: 8,
  head_dim: 128,
  vocab_size: 151936,
  max_position_embeddings: 40960,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000,
  tie_word_embeddings: true,
};

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('estimateRunMemory', () => {
  it('puts a mage-tiny run near its measured peak (2.1-2.3 GB)', () => {
    const estimate = estimateRunMemory(createMageTinyConfig(222), { lora: false, reference: true });
    expect(estimate.bytes).toBeGreaterThan(2.0 * GB);
    expect(estimate.bytes).toBeLessThan(2.7 * GB);
  });

  it('counts gradients and moments only for full fine-tuning', () => {
    const config = fromHfConfig(QWEN3_06B);
    const full = estimateRunMemory(config, { lora: false, reference: true });
    const lora = estimateRunMemory(config, { lora: true, reference: true });
    expect(full.parts['gradients and optimizer']).toBeGreaterThan(6 * GB);
    expect(lora.parts['gradients and optimizer']).toBe(0);
    expect(full.bytes - lora.bytes).toBe(full.parts['gradients and optimizer']);
    expect(full.bytes).toBeGreaterThan(16 * GB);
  });
});

describe('checkRunMemory', () => {
  const estimate = { bytes: 12 * GB, parts: { weights: 10 * GB, runtime: 2 * GB } };

  it('refuses a run that cannot fit, naming the parts and the way out', () => {
    const run = () => checkRunMemory(estimate, 'training', { total: 8 * GB, available: 6 * GB, env: {} });
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(
      /needs about 12\.0 GB \(weights 10\.0 GB, runtime 2\.0 GB\); this machine has 8\.0 GB/,
    );
    expect(run).toThrow(new RegExp(`LoRA.*${SKIP_MEMORY_CHECK_ENV}=1`));
  });

  it('runs anyway when the user overrides the check', () => {
    const lines: string[] = [];
    checkRunMemory(estimate, 'training', {
      total: 8 * GB,
      available: 6 * GB,
      env: { [SKIP_MEMORY_CHECK_ENV]: '1' },
      log: (l) => lines.push(l),
    });
    expect(lines[0]).toMatch(/may swap or be killed/);
  });

  it('warns when the estimate exceeds free memory, and says nothing alarming when it fits', () => {
    expect(checkRunMemory(estimate, 'training', { total: 16 * GB, available: 10 * GB, env: {} })).toMatch(
      /may swap/,
    );
    expect(checkRunMemory(estimate, 'training', { total: 32 * GB, available: 20 * GB, env: {} })).not.toMatch(
      /swap/,
    );
  });
});

describe('modelConfigOf', () => {
  it("reads a Hugging Face config.json and falls back to mage-tiny's shape for a warm start still to come", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mage-memory-'));
    dirs.push(dir);
    await writeFile(join(dir, 'config.json'), JSON.stringify(QWEN3_06B));
    expect((await modelConfigOf(dir)).vocabSize).toBe(151936);
    const missing = await modelConfigOf(join(dir, 'not-yet'));
    expect(missing.hiddenSize).toBe(createMageTinyConfig(256).hiddenSize);
    // A damaged manifest is for loading to handle (a cache entry is rebuilt): no error here.
    await writeFile(join(dir, 'mage-tiny.json'), 'null');
    expect((await modelConfigOf(dir)).hiddenSize).toBe(createMageTinyConfig(256).hiddenSize);
  });
});

describe('mage train', () => {
  it('stops before loading a model that cannot fit, with exit 1 and the estimate', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mage-memory-'));
    dirs.push(dir);
    // A 70B-shaped model: the check reads config.json only, so the weights file can be empty.
    const huge = { ...QWEN3_06B, hidden_size: 8192, intermediate_size: 28672, num_hidden_layers: 80 };
    await writeFile(join(dir, 'config.json'), JSON.stringify({ ...huge, num_attention_heads: 64 }));
    await writeFile(join(dir, 'model.safetensors'), '');
    const r = await runCaptured([
      'train',
      '--preset',
      'smoke',
      '--model',
      dir,
      '--run-dir',
      join(dir, 'run'),
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/memory: training needs about \d+\.\d GB .*would not fit/);
  });
});
