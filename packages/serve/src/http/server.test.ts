import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng } from '@mage-rl/core';
import {
  createGenerator,
  createLocalRunner,
  createOnnxLearner,
  exportPeftAdapter,
  fillNormal,
  initLora,
  type LoraOptions,
  paramSpecs,
} from '@mage-rl/learner';
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServeEngine, type ServeEngine } from '../engine/engine';
import { tinyServedModel } from '../testing/tiny-model.test-helper';
import { createOpenAiServer, type OpenAiServer } from './server';

const model = tinyServedModel();
const API_KEY = 'test-key';
let server: OpenAiServer;
let engine: ServeEngine;
let client: OpenAI;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mage-serve-'));
  engine = await createServeEngine({
    model,
    limits: { maxQueuedRows: 12, maxRowsPerClient: 12, batchWaitMs: 5 },
  });
  server = await createOpenAiServer({
    engine,
    port: 0,
    apiKey: API_KEY,
    adapterDir: dir,
    maxBodyBytes: 64 * 1024,
    limits: { maxTokens: 64 },
  });
  client = new OpenAI({ baseURL: server.url, apiKey: API_KEY, maxRetries: 0 });
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const tok = model.tokenizer;
const userPrompt = [{ role: 'user' as const, content: 'the cat sat on the mat' }];

/** What the learner's generator makes of `prompt` in-process (no server, no batching). */
async function inProcess(
  prompt: number[],
  maxTokens: number,
  lora?: { lora: LoraOptions; adapters: Map<string, Float32Array> },
) {
  const runner = createLocalRunner();
  const feeds: Record<string, { data: Float32Array; dims: readonly number[] }> = {};
  for (const s of paramSpecs(model.config))
    feeds[s.name] = { data: model.weights.get(s.name) as Float32Array, dims: s.shape };
  if (lora) {
    for (const s of (await import('@mage-rl/learner')).loraSpecs(model.config, lora.lora))
      feeds[s.name] = { data: lora.adapters.get(s.name) as Float32Array, dims: s.shape };
  }
  await runner.setPersistent(feeds);
  const [row] = await createGenerator({
    config: model.config,
    runner,
    ...(lora ? { graphOptions: { lora: lora.lora } } : {}),
  }).generate({
    prompts: [prompt],
    seeds: [0],
    maxTokens,
    sampling: { temperature: 0, topK: 0, topP: 1 },
    eosTokenIds: tok.eosTokenIds,
  });
  await runner.dispose();
  return row as { tokens: number[]; logprobs: number[] };
}

describe('mage serve with the openai client', () => {
  it('lists the model', async () => {
    const list = await client.models.list();
    expect(list.data.map((m) => m.id)).toEqual(['tiny']);
    const one = await client.models.retrieve('tiny');
    expect(one.id).toBe('tiny');
  });

  it('chat: greedy output is the chat template + the generator, token for token, with log-probs', async () => {
    const r = await client.chat.completions.create({
      model: 'tiny',
      messages: userPrompt,
      temperature: 0,
      max_tokens: 12,
      logprobs: true,
      top_logprobs: 3,
      // vLLM's extension: the prompt and response token ids.
      ...{ return_token_ids: true },
    });
    const prompt = tok.encodeChat(userPrompt);
    const expected = await inProcess(prompt, 12);
    const body = r as unknown as { prompt_token_ids: number[]; choices: { token_ids: number[] }[] };
    expect(body.prompt_token_ids).toEqual(prompt);
    expect(body.choices[0]?.token_ids).toEqual(expected.tokens);
    const choice = r.choices[0];
    expect(choice?.message.content).toBe(tok.decode(expected.tokens));
    expect(choice?.finish_reason).toBe(expected.tokens.length === 12 ? 'length' : 'stop');
    const content = choice?.logprobs?.content ?? [];
    expect(content.map((c) => c.logprob)).toEqual(expected.logprobs.map((x) => expect.closeTo(x, 4)));
    // Greedy: the sampled token is the most likely alternative, listed first with the same log-prob.
    for (const c of content) {
      expect(c.top_logprobs).toHaveLength(3);
      expect(c.top_logprobs[0]?.logprob).toBeCloseTo(c.logprob, 4);
      expect(c.top_logprobs[0]!.logprob).toBeGreaterThanOrEqual(c.top_logprobs[1]!.logprob);
    }
    expect(r.usage).toMatchObject({
      prompt_tokens: prompt.length,
      completion_tokens: expected.tokens.length,
    });
  });

  it('chat: the same seed gives the same samples; n choices differ; stop strings cut the text', async () => {
    const ask = (extra: Record<string, unknown>) =>
      client.chat.completions.create({
        model: 'tiny',
        messages: userPrompt,
        temperature: 1,
        max_tokens: 16,
        seed: 7,
        ...extra,
      });
    const a = await ask({});
    const b = await ask({});
    expect(a.choices[0]?.message.content).toBe(b.choices[0]?.message.content);
    const many = await ask({ n: 3 });
    expect(many.choices).toHaveLength(3);
    expect(many.choices[0]?.message.content).toBe(a.choices[0]?.message.content);
    expect(new Set(many.choices.map((c) => c.message.content)).size).toBeGreaterThan(1);

    const greedy = await client.chat.completions.create({
      model: 'tiny',
      messages: userPrompt,
      temperature: 0,
      max_tokens: 16,
    });
    const words = (greedy.choices[0]?.message.content ?? '').split(' ');
    expect(words.length).toBeGreaterThan(3);
    const stop = words[2] as string;
    const cut = await client.chat.completions.create({
      model: 'tiny',
      messages: userPrompt,
      temperature: 0,
      max_tokens: 16,
      stop: [stop],
    });
    const text = greedy.choices[0]?.message.content ?? '';
    expect(cut.choices[0]?.message.content).toBe(text.slice(0, text.indexOf(stop)));
    expect(cut.choices[0]?.finish_reason).toBe('stop');
    expect((cut.choices[0] as unknown as { stop_reason: string }).stop_reason).toBe(stop);
  });

  it('chat: streamed deltas add up to the non-streamed answer (with and without log-probs)', async () => {
    const base = { model: 'tiny', messages: userPrompt, temperature: 0, max_tokens: 12 } as const;
    const whole = await client.chat.completions.create(base);
    for (const logprobs of [false, true]) {
      const stream = await client.chat.completions.create({
        ...base,
        stream: true,
        logprobs,
        stream_options: { include_usage: true },
      });
      let text = '';
      let finish: string | null = null;
      let lps = 0;
      let usage: unknown = null;
      for await (const chunk of stream) {
        const c = chunk.choices[0];
        text += c?.delta.content ?? '';
        finish = c?.finish_reason ?? finish;
        lps += c?.logprobs?.content?.length ?? 0;
        if (chunk.usage) usage = chunk.usage;
      }
      expect(text).toBe(whole.choices[0]?.message.content);
      expect(finish).toBe(whole.choices[0]?.finish_reason);
      expect(lps).toBe(logprobs ? whole.usage?.completion_tokens : 0);
      expect(usage).toEqual(whole.usage);
    }
  });

  it('chat: a streamed answer stops where the non-streamed one does; messages may carry token ids', async () => {
    const base = { model: 'tiny', messages: userPrompt, temperature: 0, max_tokens: 16 } as const;
    const words = ((await client.chat.completions.create(base)).choices[0]?.message.content ?? '').split(' ');
    const stop = words.slice(3, 5).join(' ');
    const whole = await client.chat.completions.create({ ...base, stop });
    expect(whole.choices[0]?.finish_reason).toBe('stop');
    let text = '';
    for await (const chunk of await client.chat.completions.create({ ...base, stop, stream: true }))
      text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(whole.choices[0]?.message.content);
    expect(text).not.toContain(stop);

    // mage's extension: an assistant message's token ids are used verbatim (here: ids the text lacks).
    const ids = [tok.encode('red')[0] as number, 1, tok.encode('blue')[0] as number];
    const messages = [
      ...userPrompt,
      { role: 'assistant', content: 'red blue', token_ids: ids },
      { role: 'user', content: 'one' },
    ];
    const r = (await client.chat.completions.create({
      model: 'tiny',
      messages,
      max_tokens: 2,
      ...{ return_token_ids: true },
    } as never)) as unknown as { prompt_token_ids: number[] };
    const expected = tok.encodeChat([
      ...userPrompt,
      { role: 'assistant', content: 'red blue', tokens: ids },
      { role: 'user', content: 'one' },
    ]);
    expect(r.prompt_token_ids).toEqual(expected);
    expect(expected).not.toEqual(
      tok.encodeChat([
        ...userPrompt,
        { role: 'assistant', content: 'red blue' },
        { role: 'user', content: 'one' },
      ]),
    );
  });

  it('completions: token-id and text prompts, token ids and per-token log-probs as vLLM returns them', async () => {
    const prompt = tok.encode('one two three');
    const r = await client.completions.create({
      model: 'tiny',
      prompt: [prompt, tok.encode('red blue')] as unknown as string,
      temperature: 0,
      max_tokens: 8,
      logprobs: 0,
      ...{ return_token_ids: true },
    });
    expect(r.choices).toHaveLength(2);
    const expected = await inProcess(prompt, 8);
    const first = r.choices[0] as unknown as {
      token_ids: number[];
      prompt_token_ids: number[];
      text: string;
      logprobs: { token_logprobs: number[]; top_logprobs: unknown };
    };
    expect(first.prompt_token_ids).toEqual(prompt);
    expect(first.token_ids).toEqual(expected.tokens);
    expect(first.text).toBe(tok.decode(expected.tokens));
    expect(first.logprobs.token_logprobs).toEqual(expected.logprobs.map((x) => expect.closeTo(x, 4)));
    expect(first.logprobs.top_logprobs).toBeNull();
    const second = r.choices[1] as unknown as { prompt_token_ids: number[] };
    expect(second.prompt_token_ids).toEqual(tok.encode('red blue'));

    const withTop = await client.completions.create({
      model: 'tiny',
      prompt: 'one two',
      temperature: 0,
      max_tokens: 4,
      logprobs: 2,
    });
    const top = withTop.choices[0]?.logprobs?.top_logprobs ?? [];
    expect(top.length).toBe(withTop.usage?.completion_tokens);
    for (const alts of top) expect(Object.keys(alts)).toHaveLength(2);

    const stream = await client.completions.create({
      model: 'tiny',
      prompt: 'one two',
      temperature: 0,
      max_tokens: 4,
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
    expect(text).toBe(withTop.choices[0]?.text);
  });

  it('batches concurrent requests on the fly without changing any result', async () => {
    const prompts = [
      'one',
      'two three',
      'red blue green',
      'the cat',
      'a dog sat',
      'yes no',
      'six',
      'ten nine',
    ];
    const ask = (p: string) =>
      client.completions.create({ model: 'tiny', prompt: p, temperature: 0, max_tokens: 10, logprobs: 0 });
    const sequential: Awaited<ReturnType<typeof ask>>[] = [];
    for (const p of prompts) sequential.push(await ask(p));
    const before = engine.stats();
    const together = await Promise.all(prompts.map(ask));
    const after = engine.stats();
    expect(after.maxBatch).toBeGreaterThan(1);
    expect(after.batches - before.batches).toBeLessThan(prompts.length);
    together.forEach((r, i) => {
      expect(r.choices[0]?.text).toBe(sequential[i]?.choices[0]?.text);
      expect(r.choices[0]?.logprobs?.token_logprobs).toEqual(
        (sequential[i]?.choices[0]?.logprobs?.token_logprobs ?? []).map((x) => expect.closeTo(x, 4)),
      );
    });
  });

  it('loads and unloads LoRA adapters at runtime (vLLM endpoints); an adapter changes the output as in-process', async () => {
    const lora: LoraOptions = { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj', 'up_proj'] };
    const adapters = initLora(model.config, lora, createRng('a'));
    const rng = createRng('b');
    for (const [name, a] of adapters) if (name.includes('lora_B')) fillNormal(rng.split(name), a, 0.5);
    const path = join(dir, 'adapter');
    await exportPeftAdapter({ dir: path, config: model.config, lora, adapters });
    const loaded = await client.post('/load_lora_adapter', { body: { lora_name: 'sql', lora_path: path } });
    expect(String(loaded)).toMatch(/Success/);
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(['tiny', 'sql']);

    const prompt = tok.encode('one two three');
    const ask = (m: string) =>
      client.completions.create({ model: m, prompt, temperature: 0, max_tokens: 8, logprobs: 0 });
    const [withAdapter, base] = await Promise.all([ask('sql'), ask('tiny')]);
    const expected = await inProcess(prompt, 8, { lora, adapters });
    expect(withAdapter.choices[0]?.logprobs?.token_logprobs).toEqual(
      expected.logprobs.map((x) => expect.closeTo(x, 4)),
    );
    expect(withAdapter.choices[0]?.logprobs?.token_logprobs).not.toEqual(
      base.choices[0]?.logprobs?.token_logprobs,
    );
    // A learner with the same adapters scores the served tokens alike.
    const learner = await createOnnxLearner({
      config: model.config,
      tokenizer: tok,
      weights: model.weights,
      lora,
      adapters,
      runner: 'local',
    });
    const [scored] = await learner.logprobs([{ promptTokens: prompt, responseTokens: expected.tokens }]);
    expect(Array.from(scored as Float32Array)).toEqual(expected.logprobs.map((x) => expect.closeTo(x, 4)));
    await learner.dispose();

    await client.post('/unload_lora_adapter', { body: { lora_name: 'sql' } });
    await expect(ask('sql')).rejects.toMatchObject({ status: 404 });
  });

  it('an engine given `transferWeights` takes the weights (held once, by its runner) and answers the same', async () => {
    const own = {
      ...model,
      weights: new Map([...model.weights].map(([name, w]) => [name, Float32Array.from(w)])),
    };
    const taking = await createServeEngine({ model: own, transferWeights: true });
    try {
      for (const [name, w] of own.weights) expect(w.byteLength, name).toBe(0);
      expect(taking.model.weights.size).toBe(0);
      const prompt = tok.encodeChat(userPrompt);
      const [row] = await taking.generate([
        {
          prompt,
          seed: 0,
          maxTokens: 12,
          sampling: { temperature: 0, topK: 0, topP: 1 },
          adapter: null,
          stop: [],
        },
      ]);
      expect(row?.tokens).toEqual((await inProcess(prompt, 12)).tokens);
    } finally {
      await taking.close();
    }
  });
});

describe('mage serve: malformed requests get OpenAI-shaped errors and the server keeps serving', () => {
  const raw = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${API_KEY}`,
        'content-type': 'application/json',
        ...(init.headers ?? {}),
      },
    });
  const status = async (p: Promise<unknown>) => {
    try {
      await p;
      return 200;
    } catch (e) {
      expect(e).toBeInstanceOf(APIError);
      const err = e as APIError;
      expect(err.error).toMatchObject({ message: expect.any(String), type: expect.any(String) });
      return err.status ?? 0;
    }
  };
  const chat = (extra: Record<string, unknown>) =>
    client.chat.completions.create({ model: 'tiny', messages: userPrompt, max_tokens: 4, ...extra } as never);

  const cases: [string, () => Promise<number>, number][] = [
    [
      'wrong API key',
      () => status(new OpenAI({ baseURL: server.url, apiKey: 'nope', maxRetries: 0 }).models.list()),
      401,
    ],
    ['no API key', async () => (await fetch(`${server.url}/models`)).status, 401],
    ['unknown model', () => status(chat({ model: 'gpt-5' })), 404],
    ['unknown route', async () => (await raw('/embeddings', { method: 'POST', body: '{}' })).status, 404],
    ['GET on a POST route', async () => (await raw('/chat/completions')).status, 405],
    [
      'invalid JSON',
      async () => (await raw('/chat/completions', { method: 'POST', body: '{"model": ' })).status,
      400,
    ],
    [
      'a JSON array body',
      async () => (await raw('/completions', { method: 'POST', body: '[1, 2]' })).status,
      400,
    ],
    ['no messages', () => status(client.chat.completions.create({ model: 'tiny', messages: [] })), 400],
    ['a bad role', () => status(chat({ messages: [{ role: 'wizard', content: 'hi' }] })), 400],
    ['temperature 5', () => status(chat({ temperature: 5 })), 400],
    ['n = 100', () => status(chat({ n: 100 })), 400],
    ['max_tokens beyond the server limit', () => status(chat({ max_tokens: 1000 })), 400],
    ['top_logprobs 50', () => status(chat({ logprobs: true, top_logprobs: 50 })), 400],
    ['presence_penalty', () => status(chat({ presence_penalty: 1 })), 400],
    [
      'an image part',
      () =>
        status(
          chat({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }] }),
        ),
      400,
    ],
    [
      'a token id outside the vocabulary',
      () => status(client.completions.create({ model: 'tiny', prompt: [1, 99999] as unknown as string })),
      400,
    ],
    [
      'a prompt longer than the context',
      () =>
        status(
          client.completions.create({
            model: 'tiny',
            prompt: Array(200).fill(5) as unknown as string,
            max_tokens: 2,
          }),
        ),
      400,
    ],
    ['echo', () => status(client.completions.create({ model: 'tiny', prompt: 'one', echo: true })), 400],
    [
      'a body over the limit',
      async () =>
        (
          await raw('/completions', {
            method: 'POST',
            body: JSON.stringify({ model: 'tiny', prompt: 'one '.repeat(40_000) }),
          })
        ).status,
      413,
    ],
    [
      'more rows than the queue holds',
      () =>
        status(
          client.completions.create({ model: 'tiny', prompt: ['one', 'two', 'three'], n: 5, max_tokens: 2 }),
        ),
      429,
    ],
    [
      'unloading an unknown adapter',
      () => status(client.post('/unload_lora_adapter', { body: { lora_name: 'nothing' } })),
      404,
    ],
    [
      'loading an adapter from a missing directory',
      () =>
        status(
          client.post('/load_lora_adapter', { body: { lora_name: 'x', lora_path: join(dir, 'missing') } }),
        ),
      403,
    ],
  ];

  for (const [name, run, expected] of cases) {
    it(`${name} → ${expected}, then a request still succeeds`, async () => {
      expect(await run()).toBe(expected);
      const ok = await client.completions.create({
        model: 'tiny',
        prompt: 'one two',
        temperature: 0,
        max_tokens: 2,
      });
      expect(ok.choices).toHaveLength(1);
    });
  }

  it('every error body has the OpenAI shape', async () => {
    const res = await raw('/chat/completions', {
      method: 'POST',
      body: JSON.stringify({ model: 'tiny', messages: [], temperature: 9 }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        message: expect.any(String),
        type: 'invalid_request_error',
        param: expect.any(String),
        code: null,
      },
    });
  });
});
