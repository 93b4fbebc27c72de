/**
 * The fake Tinker service's endpoints: sessions, models and their training (`fake-losses.ts`,
 * `fake-model.ts`), saved states and sampler weights, sampling, and futures. Every request that the
 * service answers with a future is applied at once; `retrieve_future` returns the result after
 * `pendingPolls` `try_again` answers.
 */

import { createRng } from '@mage-rl/core';
import type { AdamParams, ForwardBackwardInput, SamplingParams } from '../api/wire';
import { FakeUserError, forwardBackward } from './fake-losses';
import { adamStep, type FakeModelWeights, type FakeOptimizerState, sampleSequence } from './fake-model';

export interface FakeBackendOptions {
  readonly vocabSize: number;
  readonly pendingPolls: number;
  readonly decode?: (tokens: readonly number[]) => string;
  readonly eosTokenIds?: readonly number[];
}

export interface FakeModelState {
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

export type Answer = { readonly status: number; readonly body: unknown };

const cloneMap = (m: Map<string, Float64Array>) => new Map([...m].map(([k, v]) => [k, Float64Array.from(v)]));
const cloneWeights = (w: FakeModelWeights): FakeModelWeights => ({ table: cloneMap(w.table) });
const cloneOptimizer = (o: FakeOptimizerState): FakeOptimizerState => ({
  step: o.step,
  m: cloneMap(o.m),
  v: cloneMap(o.v),
});
const emptyOptimizer = (): FakeOptimizerState => ({ step: 0, m: new Map(), v: new Map() });

export function record(value: unknown): Record<string, unknown> {
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

type Handler = (body: Record<string, unknown>) => Answer;

/** The service's state, shared by the endpoint groups below. */
interface Backend {
  readonly options: FakeBackendOptions;
  readonly sessions: Set<string>;
  readonly models: Map<string, FakeModelState>;
  readonly checkpoints: Map<string, Checkpoint>;
  readonly samplers: Map<string, { baseModel: string; weights: FakeModelWeights }>;
  readonly futures: Map<string, { polls: number; result: unknown }>;
  next(): number;
  modelOf(body: Record<string, unknown>): [string, FakeModelState];
  /** A future whose result is `compute()`'s value, or `{ error, category: 'user' }` when it refuses. */
  future(modelId: string | null, compute: () => unknown): Answer;
}

function createBackend(options: FakeBackendOptions): Backend {
  let counter = 0;
  const b: Backend = {
    options,
    sessions: new Set(),
    models: new Map(),
    checkpoints: new Map(),
    samplers: new Map(),
    futures: new Map(),
    next: () => ++counter,
    modelOf(body) {
      const id = str(body, 'model_id');
      const model = b.models.get(id);
      if (model === undefined) throw new FakeUserError(`unknown model_id ${id}`);
      return [id, model];
    },
    future(modelId, compute) {
      const requestId = `req-${b.next()}`;
      let result: unknown;
      try {
        result = compute();
      } catch (error) {
        if (!(error instanceof FakeUserError)) throw error;
        result = { error: error.message, category: 'user' };
      }
      b.futures.set(requestId, { polls: 0, result });
      return { status: 200, body: { request_id: requestId, ...(modelId ? { model_id: modelId } : {}) } };
    },
  };
  return b;
}

function fbOutput(r: ReturnType<typeof forwardBackward>) {
  return {
    loss_fn_output_type: 'ArrayRecord',
    loss_fn_outputs: r.outputs,
    metrics: { 'loss:sum': r.loss },
  };
}

function sessionHandlers(b: Backend): Record<string, Handler> {
  const { sessions } = b;
  return {
    '/api/v1/create_session': () => {
      const id = `session-${b.next()}`;
      sessions.add(id);
      return { status: 200, body: { type: 'create_session', session_id: id } };
    },
    '/api/v1/session_heartbeat': (body) => {
      if (!sessions.has(str(body, 'session_id'))) throw new FakeUserError('unknown session_id');
      return { status: 200, body: { type: 'session_heartbeat' } };
    },
  };
}

function trainingHandlers(b: Backend): Record<string, Handler> {
  const { models, checkpoints, samplers, sessions } = b;
  const { vocabSize } = b.options;
  const { future } = b;
  const modelOf = (body: Record<string, unknown>) => b.modelOf(body);
  return {
    '/api/v1/create_model': (body) => {
      if (!sessions.has(str(body, 'session_id'))) throw new FakeUserError('unknown session_id');
      const baseModel = str(body, 'base_model');
      const lora = body.lora_config as { rank?: unknown } | undefined;
      const rank = typeof lora?.rank === 'number' ? lora.rank : 32;
      const id = `model-${b.next()}`;
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
      const params = body.adam_params as AdamParams;
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
  };
}

function samplerWeights(b: Backend, body: Record<string, unknown>): FakeModelWeights {
  if (typeof body.model_path === 'string') {
    const s = b.samplers.get(body.model_path);
    if (s === undefined) throw new FakeUserError(`no sampler weights at ${body.model_path}`);
    return s.weights;
  }
  if (typeof body.base_model === 'string') return { table: new Map() };
  throw new FakeUserError('asample needs model_path or base_model');
}

function samplingHandlers(b: Backend): Record<string, Handler> {
  const { options, futures } = b;
  const { vocabSize, pendingPolls } = options;
  let samples = 0;
  return {
    '/api/v1/asample': (body) => {
      const weights = samplerWeights(b, body);
      const prompt = (body.prompt as { chunks?: { tokens?: number[] }[] } | undefined)?.chunks?.flatMap(
        (c) => c.tokens ?? [],
      );
      if (prompt === undefined) throw new FakeUserError('prompt.chunks is required');
      const params: Partial<SamplingParams> = record(body.sampling_params);
      const n = typeof body.num_samples === 'number' ? body.num_samples : 1;
      return b.future(null, () => {
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
}

/** The endpoints by path, over a new, empty service state. */
export function createFakeBackend(options: FakeBackendOptions): {
  readonly handlers: Record<string, Handler>;
  readonly models: Map<string, FakeModelState>;
} {
  const b = createBackend(options);
  return {
    handlers: { ...sessionHandlers(b), ...trainingHandlers(b), ...samplingHandlers(b) },
    models: b.models,
  };
}
