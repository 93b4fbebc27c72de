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
import { at, createRng } from '@mage-rl/core';
import type { ForwardBackwardInput, SamplingParams } from '../api/wire';
import { FakeUserError, forwardBackward } from './fake-losses';
import {
  adamStep,
  type FakeAdamParams,
  type FakeModelWeights,
  type FakeOptimizerState,
  logSoftmaxOf,
  sampleSequence,
} from './fake-model';

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

interface FakeModelState {
  readonly baseModel: string;
  readonly loraRank: number;
  weights: FakeModelWeights;
  optimizer: FakeOptimizerState;
  grads: Map<string, Float64Array>;
}

interface Checkpoint {
  readonly baseModel: string;
  readonly loraRank: number;
  readonly weights: FakeModelWeights;
  readonly optimizer: FakeOptimizerState;
}

type Answer = { readonly status: number; readonly body: unknown };

const cloneMap = (m: Map<string, Float64Array>) => new Map([...m].map(([k, v]) => [k, Float64Array.from(v)]));
const cloneWeights = (w: FakeModelWeights): FakeModelWeights => ({ table: cloneMap(w.table) });
const cloneOptimizer = (o: FakeOptimizerState): FakeOptimizerState => ({
  step: o.step,
  m: cloneMap(o.m),
  v: cloneMap(o.v),
});
const emptyOptimizer = (): FakeOptimizerState => ({ step: 0, m: new Map(), v: new Map() });

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function record(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new FakeUserError('the body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

function str(body: Record<string, unknown>, key: string): string {
  const v = body[key];
  if (typeof v !== 'string' || v === '') throw new FakeUserError(`${key} must be a non-empty string`);
  return v;
}

/** Starts the fake service (see the module comment). */
export async function startFakeTinker(options: FakeTinkerOptions = {}): Promise<FakeTinker> {
  const vocabSize = options.vocabSize ?? 64;
  const pendingPolls = options.pendingPolls ?? 0;
  const requests: FakeRequestRecord[] = [];
  const faults = new Map<string, FakeFault[]>();
  const applied = new Map<string, number>();
  const answered = new Map<string, Answer>();
  const sessions = new Set<string>();
  const models = new Map<string, FakeModelState>();
  const checkpoints = new Map<string, Checkpoint>();
  const samplers = new Map<string, { baseModel: string; weights: FakeModelWeights }>();
  const futures = new Map<string, { polls: number; result: unknown }>();
  let counter = 0;
  let samples = 0;

  const modelOf = (body: Record<string, unknown>): [string, FakeModelState] => {
    const id = str(body, 'model_id');
    const model = models.get(id);
    if (model === undefined) throw new FakeUserError(`unknown model_id ${id}`);
    return [id, model];
  };

  /** A future whose result is `compute()`'s value, or `{ error, category: 'user' }` when it refuses. */
  const future = (modelId: string | null, compute: () => unknown): Answer => {
    const requestId = `req-${++counter}`;
    let result: unknown;
    try {
      result = compute();
    } catch (error) {
      if (!(error instanceof FakeUserError)) throw error;
      result = { error: error.message, category: 'user' };
    }
    futures.set(requestId, { polls: 0, result });
    return { status: 200, body: { request_id: requestId, ...(modelId ? { model_id: modelId } : {}) } };
  };

  const handlers: Record<string, (body: Record<string, unknown>) => Answer> = {
    '/api/v1/create_session': () => {
      const id = `session-${++counter}`;
      sessions.add(id);
      return { status: 200, body: { type: 'create_session', session_id: id } };
    },
    '/api/v1/session_heartbeat': (body) => {
      if (!sessions.has(str(body, 'session_id'))) throw new FakeUserError('unknown session_id');
      return { status: 200, body: { type: 'session_heartbeat' } };
    },
    '/api/v1/create_model': (body) => {
      if (!sessions.has(str(body, 'session_id'))) throw new FakeUserError('unknown session_id');
      const baseModel = str(body, 'base_model');
      const lora = body.lora_config as { rank?: unknown } | undefined;
      const rank = typeof lora?.rank === 'number' ? lora.rank : 32;
      const id = `model-${++counter}`;
      return future(id, () => {
        models.set(id, {
          baseModel,
          loraRank: rank,
          weights: { table: new Map() },
          optimizer: emptyOptimizer(),
          grads: new Map(),
        });
        return { model_id: id, type: 'create_model' };
      });
    },
    '/api/v1/forward': (body) => {
      const [id, model] = modelOf(body);
      const input = body.forward_input as ForwardBackwardInput;
      return future(id, () => fbOutput(forwardBackward(model.weights, input, vocabSize, null)));
    },
    '/api/v1/forward_backward': (body) => {
      const [id, model] = modelOf(body);
      const input = body.forward_backward_input as ForwardBackwardInput;
      return future(id, () => fbOutput(forwardBackward(model.weights, input, vocabSize, model.grads)));
    },
    '/api/v1/optim_step': (body) => {
      const [id, model] = modelOf(body);
      const params = body.adam_params as FakeAdamParams;
      return future(id, () => {
        if (typeof params?.learning_rate !== 'number')
          throw new FakeUserError('adam_params.learning_rate is required');
        adamStep(model.weights, model.optimizer, model.grads, params, vocabSize);
        model.grads = new Map();
        return { metrics: {} };
      });
    },
    '/api/v1/save_weights': (body) => {
      const [id, model] = modelOf(body);
      const name = typeof body.path === 'string' ? body.path : `step-${model.optimizer.step}`;
      return future(id, () => {
        const path = `tinker://${id}/weights/${name}`;
        if (checkpoints.has(path) && body.overwrite !== true) throw new FakeUserError(`${path} exists`);
        checkpoints.set(path, {
          baseModel: model.baseModel,
          loraRank: model.loraRank,
          weights: cloneWeights(model.weights),
          optimizer: cloneOptimizer(model.optimizer),
        });
        return { path, type: 'save_weights' };
      });
    },
    '/api/v1/save_weights_for_sampler': (body) => {
      const [id, model] = modelOf(body);
      const name = typeof body.path === 'string' ? body.path : `step-${model.optimizer.step}`;
      return future(id, () => {
        const path = `tinker://${id}/sampler_weights/${name}`;
        samplers.set(path, { baseModel: model.baseModel, weights: cloneWeights(model.weights) });
        return { path, type: 'save_weights_for_sampler' };
      });
    },
    '/api/v1/load_weights': (body) => {
      const [id, model] = modelOf(body);
      const path = str(body, 'path');
      return future(id, () => {
        const saved = checkpoints.get(path);
        if (saved === undefined) throw new FakeUserError(`no checkpoint at ${path}`);
        if (saved.baseModel !== model.baseModel || saved.loraRank !== model.loraRank) {
          throw new FakeUserError(`${path} was saved from ${saved.baseModel} (rank ${saved.loraRank})`);
        }
        model.weights = cloneWeights(saved.weights);
        model.optimizer = body.optimizer === true ? cloneOptimizer(saved.optimizer) : emptyOptimizer();
        model.grads = new Map();
        return { path, model_id: id, type: 'load_weights' };
      });
    },
    '/api/v1/asample': (body) => {
      const weights = samplerWeights(body);
      const prompt = (body.prompt as { chunks?: { tokens?: number[] }[] } | undefined)?.chunks?.flatMap(
        (c) => c.tokens ?? [],
      );
      if (prompt === undefined) throw new FakeUserError('prompt.chunks is required');
      const params = record(body.sampling_params) as unknown as SamplingParams;
      const n = typeof body.num_samples === 'number' ? body.num_samples : 1;
      return future(null, () => {
        const stop = params.stop ?? [];
        const stopStrings = stop.filter((s): s is string => typeof s === 'string');
        if (stopStrings.length > 0 && options.decode === undefined) {
          throw new FakeUserError('this fake was started without decode: stop strings are not supported');
        }
        const sampling = {
          maxTokens: params.max_tokens ?? 16,
          temperature: params.temperature ?? 1,
          topK: params.top_k ?? -1,
          topP: params.top_p ?? 1,
          stopTokens: new Set([
            ...(options.eosTokenIds ?? []),
            ...stop.filter((s): s is number => typeof s === 'number'),
          ]),
          stopStrings,
          ...(options.decode ? { decode: options.decode } : {}),
        };
        const rng = createRng(params.seed ?? `unseeded-${samples++}`);
        const sequences = Array.from({ length: n }, (_, i) => {
          const s = sampleSequence(weights, prompt, sampling, vocabSize, rng.split(i));
          return { stop_reason: s.stopReason, tokens: s.tokens, logprobs: s.logprobs };
        });
        return { type: 'sample', sequences };
      });
    },
    '/api/v1/retrieve_future': (body) => {
      const id = str(body, 'request_id');
      const f = futures.get(id);
      if (f === undefined) return { status: 410, body: { detail: `unknown request_id ${id}` } };
      if (f.polls < pendingPolls) {
        f.polls++;
        return { status: 200, body: { type: 'try_again', request_id: id, queue_state: 'active' } };
      }
      return { status: 200, body: f.result };
    },
  };

  function samplerWeights(body: Record<string, unknown>): FakeModelWeights {
    if (typeof body.model_path === 'string') {
      const s = samplers.get(body.model_path);
      if (s === undefined) throw new FakeUserError(`no sampler weights at ${body.model_path}`);
      return s.weights;
    }
    if (typeof body.base_model === 'string') return { table: new Map() };
    throw new FakeUserError('asample needs model_path or base_model');
  }

  function fbOutput(r: ReturnType<typeof forwardBackward>) {
    return {
      loss_fn_output_type: 'ArrayRecord',
      loss_fn_outputs: r.outputs,
      metrics: { 'loss:sum': r.loss },
    };
  }

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
