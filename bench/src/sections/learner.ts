/**
 * The learner: training throughput vs a single large GEMM measured in the same run, decode throughput
 * with the static KV buffer vs transformers.js `generate` on the same exported model, peak RSS.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng } from '@mage-rl/core';
import {
  buildTrainingGraph,
  createAdamW,
  createGenerator,
  createGraph,
  createLocalRunner,
  createMageTinyConfig,
  createWorkerRunner,
  defineModelConfig,
  exportHfModel,
  initParams,
  type ModelConfig,
  paramSpecs,
  serializeGraph,
  type TensorValue,
} from '@mage-rl/learner';
import type { BenchResult, BenchSection } from '../harness';
import { importTransformers } from '../transformers-js';

/**
 * Times `fn` (which returns units of work) `rounds` times after `warmup` calls and returns the best and
 * the median rate. Other processes share these 2 cores, so the best round is the machine's rate.
 */
async function timeRounds(
  fn: () => Promise<number>,
  rounds: number,
  warmup = 3,
): Promise<{ best: number; median: number }> {
  for (let i = 0; i < warmup; i++) await fn();
  const rates: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    const units = await fn();
    rates.push((units * 1000) / (performance.now() - start));
  }
  rates.sort((a, b) => a - b);
  return { best: rates[rates.length - 1] as number, median: rates[Math.floor(rates.length / 2)] as number };
}

/**
 * Least CPU time (ms) of `fn` over `rounds` calls after `warmup`: with one onnxruntime thread this is
 * the work itself, much less dependent on other processes sharing the cores than wall-clock time.
 */
async function cpuBestMs(fn: () => Promise<void>, rounds: number, warmup = 2): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const ms: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = process.cpuUsage();
    await fn();
    const used = process.cpuUsage(start);
    ms.push((used.user + used.system) / 1000);
  }
  return Math.min(...ms);
}

const VOCAB = 1024;
const BATCH = 8;
const SEQ = 256;

const modelConfig = (d: number): ModelConfig =>
  defineModelConfig({
    vocabSize: VOCAB,
    hiddenSize: d,
    numLayers: 4,
    numHeads: d / 32,
    intermediateSize: 4 * d,
    maxPositions: 512,
  });

/** Model FLOPs of one forward + backward step: 6·tokens·(matmul params) + attention (QKᵀ and PV, fwd+bwd). */
export function trainingFlops(c: ModelConfig, batch: number, seq: number): number {
  const d = c.hiddenSize;
  const q = c.numHeads * c.headDim;
  const kv = c.numKvHeads * c.headDim;
  const perLayer = d * q + 2 * d * kv + q * d + 3 * d * c.intermediateSize;
  const matmulParams = c.numLayers * perLayer + c.vocabSize * d;
  const tokens = batch * seq;
  const attention = c.numLayers * 3 * 2 * 2 * batch * seq * seq * q;
  return 6 * tokens * matmulParams + attention;
}

const weightFeeds = (c: ModelConfig, weights: Map<string, Float32Array>): Record<string, TensorValue> =>
  Object.fromEntries(
    paramSpecs(c).map((s) => [s.name, { data: weights.get(s.name) as Float32Array, dims: s.shape }]),
  );

/** A lone 1024³ GEMM on the default threads: FLOP per second (best of 15). */
export async function gemmRate(): Promise<number> {
  const n = 1024;
  const g = createGraph();
  g.output('c', g.matmul(g.input('a', [n, n]), g.input('b', [n, n])));
  const runner = createLocalRunner();
  await runner.load('gemm', () => serializeGraph(g));
  const a = Float32Array.from({ length: n * n }, (_, i) => ((i % 7) - 3) / 7);
  const feeds = { a: { data: a, dims: [n, n] }, b: { data: a, dims: [n, n] } };
  const rate = await timeRounds(async () => {
    await runner.run('gemm', feeds);
    return 2 * n ** 3;
  }, 15);
  await runner.dispose();
  return rate.best;
}

/** The same GEMM on one thread: FLOP per CPU second (best of 15). */
async function gemmCpuRate(): Promise<number> {
  const n = 1024;
  const g = createGraph();
  g.output('c', g.matmul(g.input('a', [n, n]), g.input('b', [n, n])));
  const runner = createLocalRunner({ threads: 1 });
  await runner.load('gemm', () => serializeGraph(g));
  const a = Float32Array.from({ length: n * n }, (_, i) => ((i % 7) - 3) / 7);
  const feeds = { a: { data: a, dims: [n, n] }, b: { data: a, dims: [n, n] } };
  const ms = await cpuBestMs(async () => {
    await runner.run('gemm', feeds);
  }, 15);
  await runner.dispose();
  return (2 * n ** 3) / (ms / 1000);
}

/** mage-tiny with a compact-grammar-sized vocabulary (the warm-start corpora give about 220–330 ids). */
const MAGE_TINY_VOCAB = 256;

async function trainingRate(
  c: ModelConfig,
  seq: number,
): Promise<{ tokensPerSecond: number; median: number; flops: number; peakRssMb: number; cpuMs: number }> {
  // As in the learner: sessions in a worker thread, denormals flushed to zero (see RunnerOptions).
  const runner = createWorkerRunner();
  const weights = initParams(c, createRng(1));
  await runner.setPersistent(weightFeeds(c, weights));
  const trainable = paramSpecs(c).map((s) => s.name);
  await runner.load('train', () =>
    serializeGraph(buildTrainingGraph({ config: c, batch: BATCH, seqLen: seq }).graph),
  );
  const rng = createRng(2);
  const N = BATCH * seq;
  const ids = BigInt64Array.from({ length: N }, () => BigInt(rng.int(c.vocabSize)));
  const targets = BigInt64Array.from({ length: N }, () => BigInt(rng.int(c.vocabSize)));
  const feeds = {
    input_ids: { data: ids, dims: [BATCH, seq] },
    targets: { data: targets, dims: [N] },
    weights: { data: new Float32Array(N).fill(1 / N), dims: [N] },
    entropy_weights: { data: new Float32Array(N).fill(0.001 / N), dims: [N] },
  };
  const optimizer = createAdamW({ lr: 1e-4 });
  let peak = 0;
  const step = async () => {
    const out = await runner.run('train', feeds);
    const grads = new Map(trainable.map((name) => [name, out[`grad.${name}`]?.data as Float32Array]));
    optimizer.step(weights, grads);
    peak = Math.max(peak, process.memoryUsage().rss);
    return N;
  };
  const rate = await timeRounds(step, 8);
  await runner.dispose();
  // The same step on one thread in this thread, timed in CPU time.
  const single = createLocalRunner({ threads: 1 });
  await single.setPersistent(weightFeeds(c, weights));
  await single.load('train', () =>
    serializeGraph(buildTrainingGraph({ config: c, batch: BATCH, seqLen: seq }).graph),
  );
  const cpuMs = await cpuBestMs(async () => {
    const out = await single.run('train', feeds);
    optimizer.step(
      weights,
      new Map(trainable.map((name) => [name, out[`grad.${name}`]?.data as Float32Array])),
    );
  }, 5);
  await single.dispose();
  return {
    tokensPerSecond: rate.best,
    median: rate.median,
    flops: trainingFlops(c, BATCH, seq),
    peakRssMb: peak / 2 ** 20,
    cpuMs,
  };
}

async function decodeRates(): Promise<BenchResult[]> {
  const c = modelConfig(128);
  const weights = initParams(c, createRng(3), { std: 0.1 });
  const dir = await mkdtemp(join(tmpdir(), 'mage-bench-'));
  const promptLen = 32;
  const newTokens = 64;
  const results: BenchResult[] = [];
  try {
    await exportHfModel({ dir: join(dir, 'model'), config: c, weights });
    const runner = createLocalRunner();
    await runner.setPersistent(weightFeeds(c, weights));
    const generator = createGenerator({ config: c, runner });
    const tjs = await importTransformers();
    tjs.env.allowRemoteModels = false;
    const hf = await tjs.AutoModelForCausalLM.from_pretrained(join(dir, 'model'), { local_files_only: true });
    for (const batch of [1, 16]) {
      const rng = createRng(batch);
      const prompts = Array.from({ length: batch }, () =>
        Array.from({ length: promptLen }, () => rng.int(VOCAB)),
      );
      const ours = (
        await timeRounds(async () => {
          await generator.generate({
            prompts,
            seeds: prompts.map((_, i) => i),
            maxTokens: newTokens,
            sampling: { temperature: 0, topK: 0, topP: 1 },
          });
          return batch * newTokens;
        }, 5)
      ).best;
      const inputIds = new tjs.Tensor('int64', BigInt64Array.from(prompts.flat(), BigInt), [
        batch,
        promptLen,
      ]);
      const mask = new tjs.Tensor('int64', new BigInt64Array(batch * promptLen).fill(1n), [batch, promptLen]);
      const theirs = (
        await timeRounds(async () => {
          await hf.generate({
            input_ids: inputIds,
            attention_mask: mask,
            max_new_tokens: newTokens,
            min_new_tokens: newTokens,
            do_sample: false,
          });
          return batch * newTokens;
        }, 5)
      ).best;
      results.push(
        { name: `decode batch ${batch} (ours, static KV buffer)`, value: ours, unit: 'tokens/s' },
        { name: `decode batch ${batch} (transformers.js generate)`, value: theirs, unit: 'tokens/s' },
        {
          name: `decode batch ${batch}: ours / transformers.js`,
          value: ours / theirs,
          unit: 'ratio',
          target: { value: batch === 1 ? 1 / 1.2 : 1, comparison: '>=' },
          note: `d_model 128, 4 layers, prompt ${promptLen}, ${newTokens} new tokens, greedy`,
        },
      );
    }
    await hf.dispose();
    await runner.dispose();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return results;
}

const section: BenchSection = {
  title: 'Learner (onnxruntime-node)',
  async run() {
    const results: BenchResult[] = [];
    // Training runs first: onnxruntime flushes denormals on the creating thread only when the process's
    // first session asks for it. The GEMM rate is measured after the training runs and again after the
    // decode runs; the best of both is the reference.
    const cases = [
      { label: 'd_model 128', config: modelConfig(128), seq: SEQ, rss: true },
      { label: 'd_model 256', config: modelConfig(256), seq: SEQ, rss: true },
      { label: 'mage-tiny', config: createMageTinyConfig(MAGE_TINY_VOCAB), seq: SEQ, rss: false },
      { label: 'mage-tiny', config: createMageTinyConfig(MAGE_TINY_VOCAB), seq: 2 * SEQ, rss: false },
    ];
    const runs = [];
    for (const k of cases) runs.push({ ...k, t: await trainingRate(k.config, k.seq) });
    const afterTraining = await gemmRate();
    const gemmCpu = await gemmCpuRate();
    const decode = await decodeRates();
    const gemm = Math.max(afterTraining, await gemmRate());
    results.push({
      name: 'single GEMM 1024³ (onnxruntime)',
      value: gemm / 1e9,
      unit: 'GFLOP/s',
      note: 'best of 30 runs',
    });
    results.push({
      name: 'single GEMM 1024³, 1 thread, per CPU second',
      value: gemmCpu / 1e9,
      unit: 'GFLOP/s',
      note: 'best of 15 in CPU time',
    });
    for (const { label, config, seq, rss, t } of runs) {
      const gflops = (t.tokensPerSecond / (BATCH * seq)) * (t.flops / 1e9);
      const what = `train ${label} (${config.numLayers} layers, ${BATCH}×${seq})`;
      results.push(
        {
          name: what,
          value: t.tokensPerSecond,
          unit: 'tokens/s',
          note: `best of 8 steps; median ${Math.round(t.median)}; forward + backward + AdamW`,
        },
        { name: `${what} model FLOP rate`, value: gflops, unit: 'GFLOP/s' },
        {
          name: `${what} / single GEMM`,
          value: gflops / (gemm / 1e9),
          unit: 'ratio',
          ...(rss ? { target: { value: 0.75, comparison: '>=' as const } } : {}),
        },
      );
      const cpuRate = t.flops / (t.cpuMs / 1000);
      results.push({
        name: `${what} 1 thread / GEMM 1 thread (CPU time)`,
        value: cpuRate / gemmCpu,
        unit: 'ratio',
        note: `${t.cpuMs.toFixed(0)} CPU ms per step (best of 5), ${(cpuRate / 1e9).toFixed(0)} GFLOP/s`,
      });
      if (rss)
        results.push({
          name: `${what} peak RSS`,
          value: t.peakRssMb,
          unit: 'MB',
          note: 'process RSS after steps',
        });
    }
    results.push(...decode);
    return results;
  },
};
export default section;
