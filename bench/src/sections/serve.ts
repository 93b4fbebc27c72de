/**
 * `mage serve`: requests/s and tokens/s of the OpenAI-compatible server at 1, 4 and 16 concurrent
 * clients (each sends one completion request — a 32-token prompt as token ids, 64 new tokens, greedy —
 * and the next when it is answered), against the learner's in-process batched decode of the same
 * prompts at batch 1, 4 and 16, in the same run. Server and clients share this process (loopback HTTP);
 * decode runs in the engine's worker thread, as in-process decode runs in its own worker runner.
 */

import { createRng } from '@mage-rl/core';
import {
  createGenerator,
  createWordLevelTokenizer,
  createWorkerRunner,
  defineModelConfig,
  initParams,
  paramSpecs,
} from '@mage-rl/learner';
import { createOpenAiServer, createServeEngine, type ServedModel } from '@mage-rl/serve';
import type { BenchResult, BenchSection } from '../harness';

const PROMPT = 32;
const NEW_TOKENS = 64;
/** Seconds per measurement; each setting is measured ROUNDS times, alternating in-process and served. */
const SECONDS = 2;
const ROUNDS = 3;

function benchModel(): ServedModel {
  const words = Array.from({ length: 250 }, (_, i) => `w${i}`);
  const base = createWordLevelTokenizer({ vocab: words });
  // No end-of-sequence id: every request generates exactly NEW_TOKENS, as the in-process batch does.
  const tokenizer = { ...base, eosTokenIds: [] };
  const config = defineModelConfig({
    vocabSize: base.vocabSize,
    hiddenSize: 128,
    numLayers: 4,
    numHeads: 4,
    intermediateSize: 512,
    maxPositions: 512,
  });
  return { id: 'bench', config, tokenizer, weights: initParams(config, createRng(3), { std: 0.1 }) };
}

const promptOf = (rng: ReturnType<typeof createRng>, vocab: number) =>
  Array.from({ length: PROMPT }, () => 4 + rng.int(vocab - 4));

/** In-process: the generator on a worker runner, `batch` prompts per call, tokens/s over SECONDS. */
async function inProcess(model: ServedModel, batch: number): Promise<{ tokens: number; requests: number }> {
  const runner = createWorkerRunner();
  const feeds: Record<string, { data: Float32Array; dims: readonly number[] }> = {};
  for (const s of paramSpecs(model.config))
    feeds[s.name] = { data: model.weights.get(s.name) as Float32Array, dims: s.shape };
  await runner.setPersistent(feeds);
  const generator = createGenerator({ config: model.config, runner });
  const rng = createRng(`in-process/${batch}`);
  const call = () =>
    generator.generate({
      prompts: Array.from({ length: batch }, () => promptOf(rng, model.config.vocabSize)),
      seeds: Array.from({ length: batch }, (_, i) => i),
      maxTokens: NEW_TOKENS,
      sampling: { temperature: 0, topK: 0, topP: 1 },
    });
  await call();
  let tokens = 0;
  let calls = 0;
  const start = performance.now();
  while (performance.now() - start < SECONDS * 1000) {
    const rows = await call();
    tokens += rows.reduce((s, r) => s + r.tokens.length, 0);
    calls++;
  }
  const secs = (performance.now() - start) / 1000;
  await runner.dispose();
  return { tokens: tokens / secs, requests: (calls * batch) / secs };
}

/** Served: `clients` loops of completion requests for SECONDS; tokens/s and requests/s. */
async function served(
  url: string,
  model: ServedModel,
  clients: number,
): Promise<{ tokens: number; requests: number }> {
  let tokens = 0;
  let requests = 0;
  const ask = async (prompt: number[]) => {
    const res = await fetch(`${url}/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'bench', prompt, max_tokens: NEW_TOKENS, temperature: 0 }),
    });
    const json = (await res.json()) as { usage: { completion_tokens: number } };
    return json.usage.completion_tokens;
  };
  const rng = createRng(`served/${clients}`);
  await Promise.all(Array.from({ length: clients }, () => ask(promptOf(rng, model.config.vocabSize))));
  const start = performance.now();
  const end = start + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const n = await ask(promptOf(rng, model.config.vocabSize));
        tokens += n;
        requests++;
      }
    }),
  );
  const secs = (performance.now() - start) / 1000;
  return { tokens: tokens / secs, requests: requests / secs };
}

const section: BenchSection = {
  title: 'serve: OpenAI-compatible server vs in-process batched decode',
  async run() {
    const model = benchModel();
    const results: BenchResult[] = [];
    const engine = await createServeEngine({ model });
    const server = await createOpenAiServer({ engine, port: 0 });
    try {
      for (const clients of [1, 4, 16]) {
        // Alternating rounds, best of each: the machines are shared, and the least disturbed round is
        // the closest to what each path can do.
        let ours = { tokens: 0, requests: 0 };
        let remote = { tokens: 0, requests: 0 };
        const before = engine.stats();
        for (let round = 0; round < ROUNDS; round++) {
          const a = await inProcess(model, clients);
          if (a.tokens > ours.tokens) ours = a;
          const b = await served(server.url, model, clients);
          if (b.tokens > remote.tokens) remote = b;
        }
        const after = engine.stats();
        const note = `d_model 128, 4 layers, prompt ${PROMPT}, ${NEW_TOKENS} new tokens, greedy, best of ${ROUNDS}`;
        results.push(
          { name: `in-process decode, batch ${clients}`, value: ours.tokens, unit: 'tokens/s' },
          { name: `served, ${clients} concurrent clients`, value: remote.tokens, unit: 'tokens/s' },
          { name: `served, ${clients} concurrent clients`, value: remote.requests, unit: 'requests/s' },
          {
            name: `served, ${clients} concurrent clients: rows per batch`,
            value: (after.rows - before.rows) / (after.batches - before.batches),
            unit: 'rows',
          },
          {
            name: `served / in-process tokens/s at ${clients}`,
            value: remote.tokens / ours.tokens,
            unit: 'ratio',
            ...(clients === 16 ? { target: { value: 0.7, comparison: '>=' as const } } : {}),
            note,
          },
        );
      }
      const stats = engine.stats();
      results.push({
        name: 'served: mean rows per batch',
        value: stats.rows / stats.batches,
        unit: 'rows',
        note: `largest ${stats.maxBatch}`,
      });
    } finally {
      await server.close();
    }
    return results;
  },
};

export default section;
