import { createRng } from '@mage-rl/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createGraph } from '../graph/graph';
import { serializeGraph } from '../graph/serialize';
import { defineModelConfig } from '../model/config';
import { countParams, initParams, paramSpecs } from '../model/params';
import { addModelLoss } from '../model/training-graph';
import { STREAMED_WEIGHT_ELEMENTS } from '../model/transformer';
import { createLocalRunner, createWorkerRunner, type GraphRunner, type LoadOptions } from '../runtime/runner';
import type { TensorValue } from '../runtime/session';
import { createOrtSession } from '../runtime/session';
import { createGenerator, MAX_GENERATE_ROWS, SMALL_RUN_FLOPS } from './generator';

const config = defineModelConfig({
  vocabSize: 37,
  hiddenSize: 16,
  numLayers: 2,
  numHeads: 4,
  numKvHeads: 2,
  intermediateSize: 24,
  maxPositions: 64,
  tieWordEmbeddings: false,
});
const weights = initParams(config, createRng(11), { std: 0.4 });
const weightFeeds: Record<string, TensorValue> = {};
for (const s of paramSpecs(config))
  weightFeeds[s.name] = { data: weights.get(s.name) as Float32Array, dims: s.shape };
const runner = createLocalRunner();
await runner.setPersistent(weightFeeds);
const generator = createGenerator({ config, runner });
afterAll(() => runner.dispose());

/** Log-probs of `tokens[1..]` from the training graph (batch 1). */
async function trainingLogprobs(
  tokens: readonly number[],
  model: { config: typeof config; weightFeeds: Record<string, TensorValue> } = { config, weightFeeds },
  T = 32,
): Promise<Float32Array> {
  const g = createGraph();
  const m = addModelLoss(g, { config: model.config, batch: 1, seqLen: T });
  g.output('logprobs', m.logprobs);
  const session = await createOrtSession(serializeGraph(g));
  const ids = new BigInt64Array(T);
  const targets = new BigInt64Array(T);
  tokens.forEach((t, i) => {
    ids[i] = BigInt(t);
    if (i > 0) targets[i - 1] = BigInt(t);
  });
  const out = await session.run({
    ...model.weightFeeds,
    input_ids: { data: ids, dims: [1, T] },
    targets: { data: targets, dims: [T] },
    weights: { data: new Float32Array(T), dims: [T] },
    entropy_weights: { data: new Float32Array(T), dims: [T] },
  });
  await session.dispose();
  return out.logprobs?.data as Float32Array;
}

describe('generator (prefill + static KV buffer decode)', () => {
  const prompts = [[1, 2, 3, 4, 5], [7], [9, 8, 7, 6, 5, 4, 3, 2, 1]];

  it('returns log-probs that match the training graph to 1e-5', async () => {
    const rows = await generator.generate({
      prompts,
      seeds: [1, 2, 3],
      maxTokens: [8, 12, 5],
      sampling: { temperature: 1, topK: 0, topP: 1 },
    });
    for (const [i, row] of rows.entries()) {
      const prompt = prompts[i] as number[];
      expect(row.tokens.length).toBe([8, 12, 5][i]);
      expect(row.finishReason).toBe('length');
      const lp = await trainingLogprobs([...prompt, ...row.tokens]);
      row.tokens.forEach((_, j) => {
        expect(Math.abs((row.logprobs[j] as number) - (lp[prompt.length - 1 + j] as number))).toBeLessThan(
          1e-5,
        );
      });
    }
  });

  it('matches the training graph after a long prompt (prefill in causal query blocks, ¾ buckets)', async () => {
    const long = defineModelConfig({ ...config, maxPositions: 320 });
    const feeds: Record<string, TensorValue> = {};
    const w = initParams(long, createRng(12), { std: 0.4 });
    for (const s of paramSpecs(long)) feeds[s.name] = { data: w.get(s.name) as Float32Array, dims: s.shape };
    const r = createLocalRunner();
    await r.setPersistent(feeds);
    const rng = createRng(13);
    // 270 prompt tokens: prefill bucket 288 (¾ of 384), two query blocks; 6 decoded tokens.
    const prompt = Array.from({ length: 270 }, () => rng.int(37));
    const [row] = await createGenerator({ config: long, runner: r }).generate({
      prompts: [prompt],
      seeds: [4],
      maxTokens: 6,
      sampling: { temperature: 1, topK: 0, topP: 1 },
    });
    await r.dispose();
    const lp = await trainingLogprobs(
      [...prompt, ...(row?.tokens ?? [])],
      { config: long, weightFeeds: feeds },
      288,
    );
    expect(row?.tokens).toHaveLength(6);
    row?.tokens.forEach((_, j) => {
      expect(Math.abs((row.logprobs[j] as number) - (lp[prompt.length - 1 + j] as number))).toBeLessThan(
        1e-5,
      );
    });
  });

  it('decodes through streamed products when weights are large: training-graph log-probs, batch-free numbers', async () => {
    // SwiGLU weights of 64 × 16,384 elements reach STREAMED_WEIGHT_ELEMENTS: decode steps multiply them
    // as (W·xᵀ)ᵀ, prefill as x·Wᵀ.
    const wide = defineModelConfig({ ...config, numLayers: 1, hiddenSize: 64, intermediateSize: 16_384 });
    expect(wide.hiddenSize * wide.intermediateSize).toBeGreaterThanOrEqual(STREAMED_WEIGHT_ELEMENTS);
    const feeds: Record<string, TensorValue> = {};
    const w = initParams(wide, createRng(14), { std: 0.1 });
    for (const s of paramSpecs(wide)) feeds[s.name] = { data: w.get(s.name) as Float32Array, dims: s.shape };
    const r = createLocalRunner();
    await r.setPersistent(feeds);
    const many = Array.from({ length: 16 }, (_, i) => [1 + (i % 5), 2, 3 + (i % 7), ...Array(i % 4).fill(4)]);
    const options = {
      prompts: many,
      seeds: many.map((_, i) => 200 + i),
      maxTokens: many.map((_, i) => (i < 13 ? 2 : 12)),
      sampling: { temperature: 1, topK: 0, topP: 1 },
    };
    // Decode steps at 16 rows, then 4 and 2 (compacted) or 16 throughout: the same numbers.
    const compact = await createGenerator({ config: wide, runner: r }).generate(options);
    const whole = await createGenerator({ config: wide, runner: r, compactRuns: false }).generate(options);
    await r.dispose();
    expect(compact).toEqual(whole);
    const row = compact[15];
    const prompt = many[15] as number[];
    const lp = await trainingLogprobs([...prompt, ...(row?.tokens ?? [])], {
      config: wide,
      weightFeeds: feeds,
    });
    expect(row?.tokens).toHaveLength(12);
    row?.tokens.forEach((_, j) => {
      expect(Math.abs((row.logprobs[j] as number) - (lp[prompt.length - 1 + j] as number))).toBeLessThan(
        1e-5,
      );
    });
  });

  it('gives a row the same tokens alone or in a batch (per-request seeds)', async () => {
    const sampling = { temperature: 0.9, topK: 10, topP: 0.9 };
    const batch = await generator.generate({ prompts, seeds: [5, 6, 7], maxTokens: 6, sampling });
    const alone = await generator.generate({
      prompts: [prompts[2] as number[]],
      seeds: [7],
      maxTokens: 6,
      sampling,
    });
    expect(alone[0]?.tokens).toEqual(batch[2]?.tokens);
    const other = await generator.generate({
      prompts: [prompts[2] as number[]],
      seeds: [8],
      maxTokens: 6,
      sampling,
    });
    expect(other[0]?.tokens).not.toEqual(batch[2]?.tokens);
  });

  /** A generator over the same runner that records the batch size of every run. */
  const recordingGenerator = (maxRows?: number) => {
    const batchSizes: number[] = [];
    const recording = createGenerator({
      config,
      ...(maxRows === undefined ? {} : { maxRows }),
      runner: {
        ...runner,
        run: (key, feeds, options) => {
          const rows = feeds.input_ids?.dims[0];
          if (rows !== undefined) batchSizes.push(rows);
          return runner.run(key, feeds, options);
        },
      },
    });
    return { generator: recording, batchSizes };
  };

  it('decodes only the unfinished rows once they fit half the batch: same tokens and log-probs', async () => {
    const sampling = { temperature: 1, topK: 0, topP: 1 };
    const many = Array.from({ length: 16 }, (_, i) => [1 + (i % 5), 2, 3 + (i % 7), ...Array(i % 4).fill(4)]);
    const limits = many.map((_, i) => (i < 13 ? 2 : 20));
    const stops: number[] = [];
    const shouldStop = (row: number, tokens: readonly number[]) => {
      stops.push(row);
      return row === 14 && tokens.length === 5;
    };
    const { generator: recording, batchSizes } = recordingGenerator();
    const seeds = many.map((_, i) => 100 + i);
    const batch = await recording.generate({ prompts: many, seeds, maxTokens: limits, sampling, shouldStop });
    // Prefill and the first decode step at 16 rows, then 3 unfinished rows in a batch of 4, then 2.
    expect(batchSizes.slice(0, 3)).toEqual([16, 16, 4]);
    expect(batchSizes.at(-1)).toBe(2);
    expect(batch.map((r) => r.tokens.length)).toEqual([...Array(13).fill(2), 20, 5, 20]);
    expect(batch[14]?.finishReason).toBe('stop');
    expect(new Set(stops)).toEqual(new Set(many.keys()));
    const whole = createGenerator({ config, runner, compactRuns: false });
    const full = await whole.generate({ prompts: many, seeds, maxTokens: limits, sampling, shouldStop });
    expect(batch).toEqual(full);
  });

  it('runs calls of more than MAX_GENERATE_ROWS rows in chunks: same tokens per row, row indices kept', async () => {
    const sampling = { temperature: 0.9, topK: 10, topP: 0.9 };
    const n = MAX_GENERATE_ROWS + 3;
    const many = Array.from({ length: n }, (_, i) => prompts[i % prompts.length] as number[]);
    const seeds = many.map((_, i) => 100 + i);
    const { generator: recording, batchSizes } = recordingGenerator();
    // Row n − 2 (in the second chunk) stops after two tokens; the others run to the limit.
    const rows = await recording.generate({
      prompts: many,
      seeds,
      maxTokens: 5,
      sampling,
      shouldStop: (row, tokens) => row === n - 2 && tokens.length === 2,
    });
    expect(rows).toHaveLength(n);
    expect(Math.max(...batchSizes)).toBe(MAX_GENERATE_ROWS);
    expect(rows[n - 2]?.finishReason).toBe('stop');
    expect(rows[n - 2]?.tokens).toHaveLength(2);
    const tail = await generator.generate({
      prompts: many.slice(-1),
      seeds: seeds.slice(-1),
      maxTokens: 5,
      sampling,
    });
    expect(rows[n - 1]?.tokens).toEqual(tail[0]?.tokens);
    const head = await generator.generate({
      prompts: many.slice(0, 1),
      seeds: seeds.slice(0, 1),
      maxTokens: 5,
      sampling,
    });
    expect(rows[0]?.tokens).toEqual(head[0]?.tokens);
  });

  it('chunks by its maxRows option (same tokens per row) and refuses a chunk of no rows', async () => {
    const sampling = { temperature: 0.9, topK: 10, topP: 0.9 };
    const many = Array.from({ length: 6 }, (_, i) => prompts[i % prompts.length] as number[]);
    const seeds = many.map((_, i) => 200 + i);
    const { generator: small, batchSizes } = recordingGenerator(4);
    const chunked = await small.generate({ prompts: many, seeds, maxTokens: 4, sampling });
    const whole = await generator.generate({ prompts: many, seeds, maxTokens: 4, sampling });
    expect(Math.max(...batchSizes)).toBe(4);
    expect(chunked.map((r) => r.tokens)).toEqual(whole.map((r) => r.tokens));
    expect(() => createGenerator({ config, runner, maxRows: 0 })).toThrow(/maxRows must be a positive/);
  });

  it('stops at EOS and at a stop predicate', async () => {
    const greedy = { temperature: 0, topK: 0, topP: 1 };
    const free = await generator.generate({ prompts: [[3]], seeds: [1], maxTokens: 6, sampling: greedy });
    const first = free[0]?.tokens[1] as number;
    const eos = await generator.generate({
      prompts: [[3]],
      seeds: [1],
      maxTokens: 6,
      sampling: greedy,
      eosTokenIds: [first],
    });
    expect(eos[0]?.finishReason).toBe('eos');
    expect(eos[0]?.tokens).toEqual(free[0]?.tokens.slice(0, 2));
    const stop = await generator.generate({
      prompts: [[3]],
      seeds: [1],
      maxTokens: 6,
      sampling: greedy,
      shouldStop: (_, tokens) => tokens.length === 3,
    });
    expect(stop[0]?.finishReason).toBe('stop');
    expect(stop[0]?.tokens.length).toBe(3);
  });

  it('gives small runs one thread and large runs the default, and decodes the same either way', async () => {
    // A worker runner (as in the learner) that records each session's load options.
    const worker = createWorkerRunner();
    await worker.setPersistent(weightFeeds);
    const loads = new Map<string, LoadOptions | undefined>();
    const spy: GraphRunner = {
      ...worker,
      load: (key, model, options) => {
        loads.set(key, options);
        return worker.load(key, model, options);
      },
    };
    // Long enough positions that a batch crossing the threshold fits one generation chunk.
    const wide = defineModelConfig({ ...config, maxPositions: 320 });
    const onWorker = createGenerator({ config: wide, runner: spy });
    const request = {
      prompts: [[1, 2, 3]],
      seeds: [5],
      maxTokens: 6,
      sampling: { temperature: 1, topK: 0, topP: 1 },
    };
    const a = await onWorker.generate(request);
    const b = await generator.generate(request);
    expect(a).toEqual(b);
    // 2 · 16 prefill tokens · parameters is far below the threshold here.
    expect(2 * 16 * countParams(config)).toBeLessThan(SMALL_RUN_FLOPS);
    expect([...loads.values()].map((o) => o?.threads)).toEqual([1, 1]);
    // Every session comes with its estimated memory for the runner's budget.
    for (const o of loads.values()) expect(o?.bytes).toBeGreaterThan(0);
    // A batch whose prefill crosses the threshold gets the runner's default.
    const tokens = Math.ceil(SMALL_RUN_FLOPS / (2 * countParams(config)));
    const big = Math.min(wide.maxPositions - 8, tokens);
    const rows = Math.ceil(tokens / big);
    expect(rows).toBeLessThanOrEqual(MAX_GENERATE_ROWS);
    loads.clear();
    await onWorker.generate({
      ...request,
      prompts: Array.from({ length: rows }, () => Array.from({ length: big }, (_, i) => i % 30)),
      seeds: Array.from({ length: rows }, (_, i) => i),
      maxTokens: 2,
    });
    const prefill = [...loads.entries()].find(([k]) => k.includes(':prefill:'));
    expect(prefill?.[1]?.threads).toBeUndefined();
    await worker.dispose();
  });
});
