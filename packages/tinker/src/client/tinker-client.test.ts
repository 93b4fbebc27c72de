import { AbortedError } from '@mage-rl/core';
import { describe, expect, it, vi } from 'vitest';
import { createModelResponseSchema, loadWeightsResponseSchema } from '../api/wire';
import type { FakeTinker, FakeTinkerOptions } from '../testing/fake-service';
import { useFakeTinker } from '../testing/fake-tinker.test-helper';
import { createTinkerClient, type TinkerClientOptions, type TinkerRetry } from './tinker-client';
import { TinkerError } from './tinker-error';

const tinker = useFakeTinker();

/** A fake service and a client whose waits are recorded and return at once. */
async function setup(options: Partial<TinkerClientOptions> = {}, fakeOptions: FakeTinkerOptions = {}) {
  const fake = await tinker.start(fakeOptions);
  const sleeps: number[] = [];
  const retries: TinkerRetry[] = [];
  // The clock moves only by the recorded waits.
  let clock = 0;
  const client = createTinkerClient({
    baseURL: fake.baseURL,
    retryDelayMs: 100,
    heartbeatMs: 0,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw new AbortedError();
      sleeps.push(ms);
      clock += ms;
    },
    now: () => clock,
    onRetry: (r) => retries.push(r),
    ...options,
  });
  return { fake, client, sleeps, retries };
}

const count = (f: FakeTinker, endpoint: string) => f.requests.filter((r) => r.endpoint === endpoint).length;

async function thrown(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('the Tinker client', () => {
  it('retries 5xx answers with exponential backoff and succeeds', async () => {
    const { fake, client, sleeps, retries } = await setup();
    fake.fault('/api/v1/create_session', { kind: 'status', status: 503 });
    fake.fault('/api/v1/create_session', { kind: 'status', status: 500 });
    fake.fault('/api/v1/create_session', { kind: 'status', status: 502 });
    const id = await client.createSession();
    expect(id).toMatch(/^session-/);
    expect(sleeps).toEqual([100, 200, 400]);
    expect(retries.map((r) => r.reason)).toEqual(['HTTP 503', 'HTTP 500', 'HTTP 502']);
    expect(count(fake, '/api/v1/create_session')).toBe(4);
  });

  it('caps the backoff and waits at least Retry-After on 429', async () => {
    const { fake, client, sleeps } = await setup({ maxRetryDelayMs: 5_000 });
    fake.fault('/api/v1/create_session', { kind: 'status', status: 429, retryAfter: 2 });
    fake.fault('/api/v1/create_session', { kind: 'status', status: 429, retryAfter: 60 });
    await client.createSession();
    expect(sleeps).toEqual([2_000, 5_000]);
  });

  it('gives up after the configured retries with an unavailable error', async () => {
    const { fake, client, sleeps } = await setup({ retries: 2 });
    for (let i = 0; i < 3; i++) fake.fault('/api/v1/create_session', { kind: 'status', status: 503 });
    const error = await thrown(client.createSession());
    expect(error).toBeInstanceOf(TinkerError);
    expect((error as TinkerError).reason).toBe('unavailable');
    expect((error as TinkerError).message).toContain('after 3 tries');
    expect(sleeps).toEqual([100, 200]);
    // A failed opening is not cached: the next call opens a session.
    expect(await client.createSession()).toMatch(/^session-/);
  });

  it('does not retry a 4xx answer and names the API key on 401', async () => {
    const { fake, client, sleeps } = await setup({}, { apiKey: 'tml-right' });
    const error = await thrown(client.createSession());
    expect((error as TinkerError).reason).toBe('http-status');
    expect((error as TinkerError).context.status).toBe(401);
    expect((error as TinkerError).message).toContain('API key');
    expect(sleeps).toEqual([]);
    expect(count(fake, '/api/v1/create_session')).toBe(1);
  });

  it('sends the API key in X-API-Key', async () => {
    const { client } = await setup({ apiKey: 'tml-right' }, { apiKey: 'tml-right' });
    expect(await client.createSession()).toMatch(/^session-/);
  });

  it('times out a request that hangs and retries it', async () => {
    const { fake, client, retries } = await setup({ timeoutMs: 200 });
    fake.fault('/api/v1/create_session', { kind: 'hang' });
    expect(await client.createSession()).toMatch(/^session-/);
    expect(retries).toHaveLength(1);
    expect(retries[0]?.reason).toBe('timeout after 200 ms');
  });

  it('retries after a connection reset', async () => {
    const { fake, client, retries } = await setup();
    fake.fault('/api/v1/create_session', { kind: 'reset' });
    expect(await client.createSession()).toMatch(/^session-/);
    expect(retries[0]?.reason).toMatch(/^network: /);
  });

  it('retries a request whose answer was lost under the same idempotency key: applied once', async () => {
    const { fake, client } = await setup();
    const session = await client.createSession();
    fake.fault('/api/v1/create_model', { kind: 'drop-answer' });
    const created = await client.submit(
      '/api/v1/create_model',
      { session_id: session, model_seq_id: 0, base_model: 'fake/base', lora_config: { rank: 4 } },
      createModelResponseSchema,
    );
    expect(created.model_id).toMatch(/^model-/);
    const sent = fake.requests.filter((r) => r.endpoint === '/api/v1/create_model');
    expect(sent).toHaveLength(2);
    expect(sent[0]?.idempotencyKey).toBe(sent[1]?.idempotencyKey);
    expect(fake.applied('/api/v1/create_model')).toBe(1);
  });

  it('polls a pending future until it finishes', async () => {
    const { fake, client, sleeps } = await setup({ pollIntervalMs: 50 }, { pendingPolls: 3 });
    const session = await client.createSession();
    const created = await client.submit(
      '/api/v1/create_model',
      { session_id: session, model_seq_id: 0, base_model: 'fake/base' },
      createModelResponseSchema,
    );
    expect(created.model_id).toMatch(/^model-/);
    expect(sleeps).toEqual([50, 50, 50]);
    expect(count(fake, '/api/v1/retrieve_future')).toBe(4);
  });

  it('fails a pending future after futureTimeoutMs', async () => {
    const { client, sleeps } = await setup(
      { pollIntervalMs: 300, futureTimeoutMs: 1_000 },
      { pendingPolls: 100 },
    );
    const session = await client.createSession();
    const error = await thrown(
      client.submit(
        '/api/v1/create_model',
        { session_id: session, model_seq_id: 0, base_model: 'fake/base' },
        createModelResponseSchema,
      ),
    );
    expect((error as TinkerError).reason).toBe('future-timeout');
    expect(sleeps).toEqual([300, 300, 300, 300]);
  });

  it('turns a failed future into a request-failed error with its category', async () => {
    const { client } = await setup();
    const session = await client.createSession();
    const { model_id } = await client.submit(
      '/api/v1/create_model',
      { session_id: session, model_seq_id: 0, base_model: 'fake/base' },
      createModelResponseSchema,
    );
    const error = await thrown(
      client.submit(
        '/api/v1/load_weights',
        { model_id, path: 'tinker://nowhere', optimizer: true },
        loadWeightsResponseSchema,
      ),
    );
    expect((error as TinkerError).reason).toBe('request-failed');
    expect((error as TinkerError).context.category).toBe('user');
    expect((error as TinkerError).message).toContain('no checkpoint at tinker://nowhere');
  });

  it('stops waiting when the signal aborts during a backoff', async () => {
    const { fake, client } = await setup();
    const controller = new AbortController();
    fake.fault('/api/v1/create_session', { kind: 'status', status: 503 });
    controller.abort();
    const error = await thrown(client.createSession({ signal: controller.signal }));
    expect(error).toBeInstanceOf(AbortedError);
  });

  it('sends session heartbeats until closed', async () => {
    const { fake, client } = await setup({ heartbeatMs: 5 });
    await client.createSession();
    await vi.waitFor(() => expect(client.heartbeats().sent).toBeGreaterThanOrEqual(2), { timeout: 5_000 });
    client.close();
    const sent = count(fake, '/api/v1/session_heartbeat');
    expect(sent).toBeGreaterThanOrEqual(2);
    expect(client.heartbeats().failed).toBe(0);
  });

  it('refuses a base URL that is not http(s)', () => {
    expect(() => createTinkerClient({ baseURL: 'ftp://x' })).toThrow(/http\(s\) URL/);
    expect(() => createTinkerClient({ baseURL: 'http://x', retries: -1 })).toThrow(/retries/);
  });
});
