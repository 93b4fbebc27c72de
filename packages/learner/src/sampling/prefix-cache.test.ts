import { createRng } from '@mage-rl/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createMageTinyConfig } from '../model/mage-tiny';
import { initParams, paramSpecs } from '../model/params';
import { createLocalRunner, createWorkerRunner, type GraphRunner } from '../runtime/runner';
import type { TensorValue } from '../runtime/session';
import { createGenerator, type GeneratedRow, type Generator } from './generator';
import { createPrefixIndex } from './prefix-cache';
import type { SamplingParams } from './sample';

describe('prefix index', () => {
  const index = () => createPrefixIndex({ maxBytes: 100, bytesPerToken: 2, minTokens: 3, idPrefix: 'm:' });

  it('matches the saved sequence with the longest common prefix, keeping one prompt token to run', () => {
    const ix = index();
    const { ids } = ix.add(
      [
        [1, 2, 3, 4],
        [1, 2, 3, 4, 5, 6],
        [9, 9, 9],
      ],
      [],
    );
    expect(ids).toEqual(['m:0', 'm:1', 'm:2']);
    expect(ix.match([1, 2, 3, 4, 5, 6, 7])).toEqual({ id: 'm:1', length: 6, whole: true });
    expect(ix.match([1, 2, 3, 4, 5, 8])).toEqual({ id: 'm:1', length: 5, whole: false });
    // The whole prompt is cached: its last token still runs (its log-probs are the first sample's).
    expect(ix.match([1, 2, 3, 4])).toEqual({ id: 'm:0', length: 3, whole: false });
    expect(ix.match([1, 2, 7, 7])).toBeUndefined(); // 2 shared tokens < minTokens
    expect(ix.match([5, 5, 5, 5])).toBeUndefined();
    expect(ix.bytes).toBe(26);
  });

  it('drops superseded sequences and evicts the least recently used past the budget', () => {
    const ix = index();
    const seq = (n: number, v: number) => Array.from({ length: n }, () => v);
    expect(ix.add([seq(20, 1), seq(20, 2)], []).ids).toEqual(['m:0', 'm:1']); // 80 bytes
    ix.match(seq(21, 1)); // m:0 used last
    const { ids, dropped } = ix.add([seq(10, 3)], []); // 100 bytes would fit …
    expect(ids).toEqual(['m:2']);
    expect(dropped).toEqual([]);
    const next = ix.add([seq(15, 4)], ['m:2']); // … m:2 superseded, then m:1 (oldest) evicted
    expect(next.dropped).toEqual(['m:2', 'm:1']);
    expect(next.ids).toEqual(['m:3']);
    expect(ix.bytes).toBe(70);
    // Larger than the whole budget: not kept; one evicted by a later sequence of the same call: not kept.
    expect(ix.add([seq(51, 5)], []).ids).toEqual([undefined]);
    const same = ix.add([seq(40, 6), seq(40, 7)], []);
    expect(same.ids).toEqual([undefined, 'm:5']);
    expect(same.dropped).toEqual(['m:0', 'm:3']);
    expect(ix.clear()).toEqual(['m:5']);
    expect(ix.bytes).toBe(0);
  });
});

// A mage-tiny-shaped model (d128, 4 layers, GQA 4/2, tied embeddings) with random weights.
const config = createMageTinyConfig(96, { eosTokenId: 3 });
const weightFeeds = (seed: number): Record<string, TensorValue> => {
  const w = initParams(config, createRng(seed), { std: 0.08 });
  return Object.fromEntries(
    paramSpecs(config).map((s) => [s.name, { data: w.get(s.name) as Float32Array, dims: s.shape }]),
  );
};
const runners: GraphRunner[] = [];
async function runnerWith(feeds: Record<string, TensorValue>, worker = false): Promise<GraphRunner> {
  const r = worker ? createWorkerRunner() : createLocalRunner();
  runners.push(r);
  await r.setPersistent(feeds);
  return r;
}
afterAll(async () => {
  for (const r of runners) await r.dispose();
});

const randomTokens = (rng: ReturnType<typeof createRng>, n: number) =>
  Array.from({ length: n }, () => 4 + Math.floor(rng.next() * (config.vocabSize - 4)));

/**
 * Meta-episodes of `turns` turns: each turn's prompt is the last prompt, the response and a few new
 * tokens (an observation), as the rollout runner's transcripts are. Episode 4 starts at turn 2 (no
 * cache) and episode 5 stops after turn 1 (its saved sequence stays unused).
 */
async function playEpisodes(generator: Generator, sampling: SamplingParams, turns = 3) {
  const rng = createRng(7);
  let prompts = [40, 75, 23, 130, 60].map((n) => [2, ...randomTokens(rng, n)]);
  const out: GeneratedRow[][] = [];
  for (let turn = 0; turn < turns; turn++) {
    const rows = await generator.generate({
      prompts,
      seeds: prompts.map((_, i) => `episode-${i}/turn-${turn}`),
      maxTokens: prompts.map((_, i) => 6 + 3 * i),
      sampling,
      eosTokenIds: [3],
    });
    out.push(rows);
    prompts = prompts.flatMap((p, i) =>
      turn === 0 && i === 4 ? [] : [[...p, ...(rows[i]?.tokens ?? []), ...randomTokens(rng, 3 + 5 * i)]],
    );
    if (turn === 0) prompts.push([2, ...randomTokens(rng, 90)]);
  }
  return out;
}

function expectSameRows(cached: GeneratedRow[][], plain: GeneratedRow[][]): void {
  expect(cached.map((t) => t.map((r) => r.tokens))).toEqual(plain.map((t) => t.map((r) => r.tokens)));
  expect(cached.map((t) => t.map((r) => r.finishReason))).toEqual(
    plain.map((t) => t.map((r) => r.finishReason)),
  );
  for (const [turn, rows] of cached.entries()) {
    for (const [i, row] of rows.entries()) {
      const ref = plain[turn]?.[i]?.logprobs ?? [];
      row.logprobs.forEach((lp, j) => {
        expect(Math.abs(lp - (ref[j] ?? Number.NaN))).toBeLessThan(1e-4);
      });
    }
  }
}

describe('generator with a prefix KV cache', () => {
  const cacheOptions = { maxBytes: 64 * 2 ** 20 };

  it('gives the uncached greedy tokens across turns while prefilling only the new tokens', async () => {
    const feeds = weightFeeds(1);
    const cached = createGenerator({ config, runner: await runnerWith(feeds), prefixCache: cacheOptions });
    const plain = createGenerator({ config, runner: await runnerWith(feeds) });
    const greedy = { temperature: 0, topK: 0, topP: 1 };
    const a = await playEpisodes(cached, greedy);
    const b = await playEpisodes(plain, greedy);
    expectSameRows(a, b);
    expect(a.flat().some((r) => r.finishReason === 'eos' || r.tokens.length > 6)).toBe(true);
    const stats = cached.stats();
    expect(plain.stats().reusedTokens).toBe(0);
    expect(stats.reusedTokens).toBeGreaterThan(0.6 * (stats.promptTokens - plain.stats().promptTokens / 3));
    expect(stats.cacheBytes).toBeGreaterThan(0);
    expect(stats.promptTokens).toBe(plain.stats().promptTokens);
  });

  it('gives the uncached sampled tokens under the same seeds (top-k/top-p too), also in a worker', async () => {
    const feeds = weightFeeds(2);
    for (const sampling of [
      { temperature: 1, topK: 0, topP: 1 },
      { temperature: 0.7, topK: 20, topP: 0.9 },
    ]) {
      const cached = createGenerator({
        config,
        runner: await runnerWith(feeds, sampling.topK > 0),
        prefixCache: cacheOptions,
      });
      const plain = createGenerator({ config, runner: await runnerWith(feeds) });
      expectSameRows(await playEpisodes(cached, sampling), await playEpisodes(plain, sampling));
      expect(cached.stats().reusedTokens).toBeGreaterThan(0);
    }
  });

  it('runs short and long new parts, and the rows still decoding, apart: same tokens and log-probs', async () => {
    const feeds = weightFeeds(3);
    const keys: string[] = [];
    const base = await runnerWith(feeds, true);
    const recording: GraphRunner = {
      ...base,
      run: (key, f, o) => {
        keys.push(key);
        return base.run(key, f, o);
      },
    };
    // 24 rows: most add a few tokens per turn (moves), every fifth adds 70 (a new attempt) and writes a
    // long response (a note).
    const play = async (generator: Generator) => {
      const rng = createRng(9);
      let prompts = Array.from({ length: 24 }, (_, i) => [2, ...randomTokens(rng, 30 + (i % 7))]);
      const out: GeneratedRow[][] = [];
      for (let turn = 0; turn < 3; turn++) {
        const rows = await generator.generate({
          prompts,
          seeds: prompts.map((_, i) => `row-${i}/turn-${turn}`),
          maxTokens: prompts.map((_, i) => (i % 5 === 0 ? 40 : 4)),
          sampling: { temperature: 1, topK: 0, topP: 1 },
        });
        out.push(rows);
        prompts = prompts.map((p, i) => [
          ...p,
          ...(rows[i]?.tokens ?? []),
          ...randomTokens(rng, i % 5 === 0 ? 70 : 5),
        ]);
      }
      return out;
    };
    const compact = await play(createGenerator({ config, runner: recording, prefixCache: cacheOptions }));
    expect(keys.some((k) => /:extend:\d+of\d+x/.test(k))).toBe(true);
    expect(keys.some((k) => /:decode:\d+of\d+x/.test(k))).toBe(true);
    const whole = await play(
      createGenerator({
        config,
        runner: await runnerWith(feeds, true),
        prefixCache: cacheOptions,
        compactRuns: false,
      }),
    );
    expect(compact).toEqual(whole);
  });

  it('drops saved keys/values when the weights version changes', async () => {
    let version = 0;
    const runner = await runnerWith(weightFeeds(3));
    const cached = createGenerator({
      config,
      runner,
      prefixCache: { ...cacheOptions, weightsVersion: () => version },
    });
    const greedy = { temperature: 0, topK: 0, topP: 1 };
    const rng = createRng(5);
    const prompt = [2, ...randomTokens(rng, 50)];
    const first = await cached.generate({ prompts: [prompt], seeds: [0], maxTokens: 5, sampling: greedy });
    const next = [...prompt, ...(first[0]?.tokens ?? []), ...randomTokens(rng, 4)];
    await runner.setPersistent(weightFeeds(4));
    version++;
    const after = await cached.generate({ prompts: [next], seeds: [0], maxTokens: 8, sampling: greedy });
    expect(cached.stats().reusedTokens).toBe(0);
    const plain = createGenerator({ config, runner: await runnerWith(weightFeeds(4)) });
    const ref = await plain.generate({ prompts: [next], seeds: [0], maxTokens: 8, sampling: greedy });
    expect(after[0]?.tokens).toEqual(ref[0]?.tokens);
    // Without the version bump the stale keys/values would have been reused.
    const stale = createGenerator({ config, runner, prefixCache: cacheOptions });
    await stale.generate({ prompts: [prompt], seeds: [0], maxTokens: 5, sampling: greedy });
    await stale.generate({ prompts: [next], seeds: [0], maxTokens: 8, sampling: greedy });
    expect(stale.stats().reusedTokens).toBeGreaterThan(0);
  });

  it('stays within its byte budget', async () => {
    const bytesPerToken = config.numLayers * 2 * config.numKvHeads * config.headDim * 4;
    const maxBytes = 200 * bytesPerToken;
    const feeds = weightFeeds(1);
    const cached = createGenerator({ config, runner: await runnerWith(feeds), prefixCache: { maxBytes } });
    const plain = createGenerator({ config, runner: await runnerWith(feeds) });
    const greedy = { temperature: 0, topK: 0, topP: 1 };
    expectSameRows(await playEpisodes(cached, greedy), await playEpisodes(plain, greedy));
    expect(cached.stats().cacheBytes).toBeLessThanOrEqual(maxBytes);
    expect(cached.stats().reusedTokens).toBeGreaterThan(0);
  });
});
