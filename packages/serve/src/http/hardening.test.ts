import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createServeEngine,
  EngineBusyError,
  type RowRequest,
  type RowResult,
  type ServeEngine,
} from '../engine/engine';
import { tinyServedModel } from '../testing/tiny-model.test-helper';
import { createOpenAiServer, type OpenAiServer, type OpenAiServerOptions } from './server';

const model = tinyServedModel();
const KEY = 'k';

/**
 * An engine whose rows never produce tokens: each `generate` resolves only once every row's
 * `onTokens` says the row is cancelled. It records the rows it was given.
 */
function stallingEngine(): ServeEngine & { readonly calls: RowRequest[][]; readonly finished: number[] } {
  const calls: RowRequest[][] = [];
  const finished: number[] = [];
  return {
    model,
    limits: { maxBatchRows: 8, maxQueuedRows: 64, batchWaitMs: 0 },
    calls,
    finished,
    generate(rows) {
      calls.push([...rows]);
      return new Promise<RowResult[]>((resolve) => {
        const timer = setInterval(() => {
          if (!rows.every((r) => r.onTokens?.([]) === true)) return;
          clearInterval(timer);
          finished.push(calls.indexOf(rows as RowRequest[]));
          resolve(
            rows.map(() => ({
              tokens: [],
              logprobs: [],
              finishReason: 'length',
              stopString: null,
              cancelled: true,
            })),
          );
        }, 5);
      });
    },
    topLogprobs: async () => [],
    loadAdapter: async () => undefined,
    unloadAdapter: () => false,
    adapterNames: () => [],
    stats: () => ({ batches: 0, rows: 0, tokens: 0, maxBatch: 0 }),
    close: async () => undefined,
  };
}

async function serve(engine: ServeEngine, o: Partial<OpenAiServerOptions> = {}): Promise<OpenAiServer> {
  return createOpenAiServer({ engine, port: 0, apiKey: KEY, log: () => undefined, ...o });
}

const json = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const chatBody = JSON.stringify({
  model: 'tiny',
  messages: [{ role: 'user', content: 'the cat' }],
  max_tokens: 8,
});
const until = async (ok: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('mage serve: clients that leave, clients that hog', () => {
  it('an abandoned non-streaming request cancels its rows', async () => {
    const engine = stallingEngine();
    const server = await serve(engine);
    const req = request(`${server.url}/chat/completions`, { method: 'POST', headers: json });
    req.on('error', () => undefined);
    req.end(chatBody);
    await until(() => engine.calls.length === 1);
    req.destroy();
    await until(() => engine.finished.length === 1);
    expect(engine.calls[0]?.[0]?.onTokens?.([])).toBe(true);
    await server.close();
  });

  it('one client cannot take more than its share of the row queue', async () => {
    const engine = await createServeEngine({
      model,
      limits: { maxQueuedRows: 8, maxRowsPerClient: 4, batchWaitMs: 0 },
    });
    const row: RowRequest = {
      prompt: [1, 2],
      seed: 1,
      maxTokens: 2,
      sampling: { temperature: 0, topK: 0, topP: 1 },
      adapter: null,
      stop: [],
    };
    await expect(engine.generate(Array(5).fill(row), 'a')).rejects.toBeInstanceOf(EngineBusyError);
    const [a, b] = await Promise.all([
      engine.generate(Array(4).fill(row), 'a'),
      engine.generate(Array(4).fill(row), 'b'),
    ]);
    expect([a.length, b.length]).toEqual([4, 4]);
    await engine.close();
  });

  it('a slow body holds no concurrency slot and gets 408; a normal request is answered meanwhile', async () => {
    const server = await serve(stallingEngine(), {
      maxConcurrentRequests: 1,
      http: { headersTimeoutMs: 300, requestTimeoutMs: 600 },
    });
    const answer = new Promise<string>((resolve) => {
      const s = connect(server.port, '127.0.0.1', () =>
        s.write(
          `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${KEY}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{`,
        ),
      );
      let got = '';
      s.on('data', (d) => {
        got += String(d);
      });
      s.on('close', () => resolve(got));
    });
    await new Promise((r) => setTimeout(r, 50));
    const models = await fetch(`${server.url}/models`, { headers: json });
    expect(models.status).toBe(200);
    expect(await answer).toMatch(/^HTTP\/1\.1 408/);
    await server.close();
  });
});

describe('mage serve: what a web page and a stranger may do', () => {
  let server: OpenAiServer;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mage-serve-harden-'));
    await mkdir(join(dir, 'adapters', 'big'), { recursive: true });
    await writeFile(join(dir, 'adapters', 'big', 'adapter_model.safetensors'), Buffer.alloc(2048));
    await writeFile(join(dir, 'adapters', 'big', 'adapter_config.json'), '{"secret": "hunter2"}');
    await mkdir(join(dir, 'outside'));
    await writeFile(join(dir, 'outside', 'adapter_config.json'), '{"secret": "hunter2"}');
    await symlink(join(dir, 'outside'), join(dir, 'adapters', 'link'));
    server = await serve(stallingEngine(), {
      adapterDir: join(dir, 'adapters'),
      maxAdapterBytes: 1024,
      http: { allowOrigins: ['http://localhost:5173'] },
    });
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { ...json, ...headers },
      body: JSON.stringify(body),
    });

  it('refuses a forged Host, a cross-site Origin and a text/plain POST; --allow-origin lets a page in', async () => {
    const list = (headers: Record<string, string>) =>
      new Promise<number>((resolve) => {
        request(`${server.url}/models`, { headers: { ...json, ...headers } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).end();
      });
    expect(await list({ host: 'attacker.example' })).toBe(421);
    expect(await list({ origin: 'https://attacker.example' })).toBe(403);
    expect(await list({ origin: 'http://localhost:5173' })).toBe(200);
    expect((await post('/load_lora_adapter', {}, { 'content-type': 'text/plain' })).status).toBe(415);
  });

  it('load_lora_adapter reads only under --adapter-dir (symlinks resolved), echoes no file contents, limits the size', async () => {
    for (const lora_path of [
      '/etc',
      join(dir, 'outside'),
      join(dir, 'adapters', 'link'),
      join(dir, 'adapters', 'none'),
    ]) {
      const res = await post('/load_lora_adapter', { lora_name: 'x', lora_path });
      expect(res.status).toBe(403);
      const text = await res.text();
      expect(text).not.toContain('hunter2');
      expect(text).not.toContain(lora_path);
    }
    const big = await post('/load_lora_adapter', { lora_name: 'x', lora_path: join(dir, 'adapters', 'big') });
    expect(big.status).toBe(413);
    expect(await big.text()).not.toContain('hunter2');
  });

  it('checks the key before routing; a malformed % escape is a 400 JSON error without a stack trace', async () => {
    const unauthenticated: [path: string, method: string][] = [
      ['/nothing', 'GET'],
      ['/chat/completions', 'GET'],
      ['/models/%E0%A4%A', 'GET'],
    ];
    for (const [path, method] of unauthenticated) {
      const res = await fetch(`${server.url}${path}`, { method });
      expect(res.status).toBe(401);
    }
    const bad = await fetch(`${server.url}/models/%E0%A4%A`, { headers: json });
    expect(bad.status).toBe(400);
    const text = await bad.text();
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'invalid_url' } });
    expect(text).not.toMatch(/\bat .*\.ts:\d+/);
  });
});

describe('mage serve: shutdown', () => {
  it('close() ends an in-flight stream with an error event and [DONE], answers 503 to a waiting request, within 5 s', async () => {
    const engine = stallingEngine();
    const logged: string[] = [];
    const server = await serve(engine, { log: (line) => logged.push(line) });
    const streamed = fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ ...JSON.parse(chatBody), stream: true }),
    }).then((r) => r.text());
    const plain = fetch(`${server.url}/chat/completions`, { method: 'POST', headers: json, body: chatBody });
    await until(() => engine.calls.length === 2);
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    const text = await streamed;
    expect(text).toMatch(/"error"/);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect((await plain).status).toBe(503);
    expect(logged).toEqual([]);
  });

  it('a port in use rejects at once', async () => {
    const first = await serve(stallingEngine());
    await expect(serve(stallingEngine(), { port: first.port })).rejects.toThrow(/EADDRINUSE/);
    await first.close();
  });
});
