import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@mage-rl/core';
import {
  checkRunMemory,
  createMageTinyConfig,
  estimateRunMemory,
  fromHfConfig,
  memoryLimitsOf,
  modelConfigOf,
  SKIP_MEMORY_CHECK_ENV,
} from '@mage-rl/learner';
import { resolveTrainConfig } from '@mage-rl/recipes';
import { memoryLimitsOfConfig } from '@mage-rl/trainer/internals';
import { afterAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../testing/cli.test-helper';

const GB = 1e9;
const GIB = 2 ** 30;
const MIB = 2 ** 20;

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

describe('memory.budget', () => {
  it("the default budget gives the learner's sizes of before: 1 GiB of sessions, 256 MiB of prefix cache, 64 rows", () => {
    expect(memoryLimitsOfConfig(resolveTrainConfig())).toEqual({
      sessionBytes: GIB,
      prefixCacheBytes: 256 * MIB,
      generateRows: 64,
    });
    expect(memoryLimitsOfConfig(resolveTrainConfig({ memory: { budget: '3GiB' } }))).toEqual({
      sessionBytes: 512 * MIB,
      prefixCacheBytes: 128 * MIB,
      generateRows: 32,
    });
  });

  it('sizes the estimate: the default as before, a smaller budget smaller caches and reference sessions', () => {
    const config = createMageTinyConfig(222);
    const before = estimateRunMemory(config, { lora: false, reference: true });
    expect(before.parts['graph sessions']).toBe(GIB);
    expect(before.parts['prefix KV cache']).toBe(256 * MIB);
    const byDefault = memoryLimitsOfConfig(resolveTrainConfig());
    expect(estimateRunMemory(config, { lora: false, reference: true, memory: byDefault })).toEqual(before);
    const small = estimateRunMemory(config, { lora: false, reference: true, memory: memoryLimitsOf(GIB) });
    expect(small.parts['graph sessions']).toBe(Math.floor(GIB / 6));
    expect(small.parts['prefix KV cache']).toBe(Math.floor(GIB / 24));
    expect(small.parts['reference model']).toBeLessThan(before.parts['reference model'] as number);
    expect(small.bytes).toBeLessThan(before.bytes - GIB);
  });

  it('warns when the estimate exceeds the budget, naming memory.budget; quiet within it', () => {
    const estimate = { bytes: 7 * GB, parts: { weights: 5 * GB, runtime: 2 * GB } };
    const lines: string[] = [];
    const line = checkRunMemory(estimate, 'training', {
      budget: 6 * GIB,
      total: 32 * GB,
      available: 20 * GB,
      env: {},
      log: (l) => lines.push(l),
    });
    expect(line).toMatch(/exceeds memory\.budget \(6\.4 GB\).*raise memory\.budget/);
    expect(line).not.toMatch(/swap/);
    expect(lines).toEqual([line]);
    const fits = checkRunMemory(estimate, 'training', {
      budget: 8 * GIB,
      total: 32 * GB,
      available: 20 * GB,
      env: {},
    });
    expect(fits).not.toMatch(/memory\.budget|swap/);
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
    expect(run).toThrow(new RegExp(`LoRA.*lower memory\\.budget.*${SKIP_MEMORY_CHECK_ENV}=1`));
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
  it('shows memory.budget in --show-config, takes --set memory.budget and refuses a bad one', async () => {
    const shown = await runCaptured(['train', '--preset', 'smoke', '--show-config']);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out).memory).toEqual({ budget: '6GiB' });
    const withBudget = (value: string | number) =>
      runCaptured(['train', '--preset', 'smoke', '--set', `memory.budget=${value}`, '--show-config']);
    const set = await withBudget('12GB');
    expect(JSON.parse(set.out).memory).toEqual({ budget: '12GB' });
    const bytes = await withBudget(4 * GIB);
    expect(JSON.parse(bytes.out).memory).toEqual({ budget: 4 * GIB });
    for (const bad of ['0', '-8GB', 'plenty', '100MB']) {
      const r = await withBudget(bad);
      expect(r.code, bad).not.toBe(0);
      expect(r.err, bad).toMatch(/memory\.budget: must be a size from 1\.00 GiB/);
    }
  });

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
