/**
 * A local fake of the Tinker REST service for tests: the endpoints this package uses, with the request
 * and response shapes of the Tinker SDK, over a real HTTP server on 127.0.0.1, training the tiny
 * prefix-table model of `fake-model.ts`. Requests are applied when they arrive and answered with a
 * future that `retrieve_future` returns (after `pendingPolls` `try_again` answers). `X-Idempotency-Key`
 * is honoured: a retried request is answered with the first answer and not applied twice. Faults can be
 * queued per endpoint to test retries and timeouts. What it does not model: architecture/tinker.md.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { at } from '@mage-rl/core';
import { type Answer, createFakeBackend, record } from './fake-handlers';
import { FakeUserError } from './fake-losses';
import { logSoftmaxOf } from './fake-model';

/** A failure the fake produces instead of handling the next request to an endpoint. */
export type FakeFault =
  /** Answer with this status (and `Retry-After` seconds when given), without applying the request. */
  | { readonly kind: 'status'; readonly status: number; readonly retryAfter?: number }
  /** Never answer (the client's timeout must fire). */
  | { readonly kind: 'hang' }
  /** Close the connection without applying the request. */
  | { readonly kind: 'reset' }
  /** Apply the request, then close the connection without answering (the answer is lost). */
  | { readonly kind: 'drop-answer' };

export interface FakeTinkerOptions {
  /** Ids the model predicts over (targets and samples must be below it). Default 64. */
  readonly vocabSize?: number;
  /** Required `X-API-Key` (401 otherwise); unset accepts any. */
  readonly apiKey?: string;
  /** `try_again` answers before a future's result. Default 0. */
  readonly pendingPolls?: number;
  /** Lets sampling stop at stop strings (the service knows the model's tokenizer). */
  readonly decode?: (tokens: readonly number[]) => string;
  /** Ids that always end a sample, as a model's end-of-sequence token does. Default none. */
  readonly eosTokenIds?: readonly number[];
}

export interface FakeRequestRecord {
  readonly endpoint: string;
  readonly body: unknown;
  readonly idempotencyKey: string | null;
}

export interface FakeTinker {
  /** `http://127.0.0.1:<port>`. */
  readonly baseURL: string;
  /** Every request received, in order (faulted ones included). */
  readonly requests: readonly FakeRequestRecord[];
  /** Queues a fault for the next request to `endpoint` (e.g. `/api/v1/forward_backward`). */
  fault(endpoint: string, fault: FakeFault): void;
  /** Optimizer steps taken by a model. */
  steps(modelId: string): number;
  /** Log-prob of `target` after `context` under a model's current weights. */
  logprob(modelId: string, context: readonly number[], target: number): number;
  /** Number of `apply` executions per endpoint (retried duplicates are not counted). */
  applied(endpoint: string): number;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the fake service (see the module comment). */
export async function startFakeTinker(options: FakeTinkerOptions = {}): Promise<FakeTinker> {
  const vocabSize = options.vocabSize ?? 64;
  const requests: FakeRequestRecord[] = [];
  const faults = new Map<string, FakeFault[]>();
  const applied = new Map<string, number>();
  const answered = new Map<string, Answer>();
  const { handlers, models } = createFakeBackend({
    vocabSize,
    pendingPolls: options.pendingPolls ?? 0,
    ...(options.decode ? { decode: options.decode } : {}),
    ...(options.eosTokenIds ? { eosTokenIds: options.eosTokenIds } : {}),
  });

  function reply(res: ServerResponse, answer: Answer, retryAfter?: number): void {
    res.writeHead(answer.status, {
      'content-type': 'application/json',
      ...(retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) }),
    });
    res.end(JSON.stringify(answer.body));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const endpoint = (req.url ?? '').split('?')[0] ?? '';
    const key = req.headers['x-idempotency-key'];
    const idempotencyKey = typeof key === 'string' ? key : null;
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    requests.push({ endpoint, body, idempotencyKey });
    const fault = faults.get(endpoint)?.shift();
    if (fault?.kind === 'hang') return;
    if (fault?.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'status') {
      reply(res, { status: fault.status, body: { detail: `injected ${fault.status}` } }, fault.retryAfter);
      return;
    }
    if (options.apiKey !== undefined && req.headers['x-api-key'] !== options.apiKey) {
      reply(res, { status: 401, body: { detail: 'invalid API key' } });
      return;
    }
    const handler = handlers[endpoint];
    if (handler === undefined) {
      reply(res, { status: 404, body: { detail: `no endpoint ${endpoint}` } });
      return;
    }
    const cacheKey = idempotencyKey === null ? null : `${endpoint} ${idempotencyKey}`;
    let answer = cacheKey === null ? undefined : answered.get(cacheKey);
    if (answer === undefined) {
      try {
        answer = handler(record(body));
        applied.set(endpoint, (applied.get(endpoint) ?? 0) + 1);
      } catch (error) {
        if (!(error instanceof FakeUserError)) throw error;
        answer = { status: 400, body: { detail: error.message } };
      }
      // Futures are retrieved many times under one key per poll; only submissions are cached.
      if (cacheKey !== null && endpoint !== '/api/v1/retrieve_future') answered.set(cacheKey, answer);
    }
    if (fault?.kind === 'drop-answer') {
      req.socket.destroy();
      return;
    }
    reply(res, answer);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      reply(res, { status: 500, body: { detail: String(error) } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    fault(endpoint, fault) {
      const queue = faults.get(endpoint) ?? [];
      queue.push(fault);
      faults.set(endpoint, queue);
    },
    steps: (modelId) => models.get(modelId)?.optimizer.step ?? 0,
    logprob(modelId, context, target) {
      const model = models.get(modelId);
      if (model === undefined) throw new Error(`unknown model ${modelId}`);
      return at(logSoftmaxOf(model.weights, context.join(','), vocabSize), target);
    },
    applied: (endpoint) => applied.get(endpoint) ?? 0,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
