/** A thin, typed wrapper over an onnxruntime-node inference session (used in-process and by the worker). */

import { availableParallelism } from 'node:os';
import { MageError } from '@mage-rl/core';
import * as ort from 'onnxruntime-node';
import { sessionOptionsOf, tensorTypeOf } from './ort-host';

export type TensorArray = Float32Array | Float64Array | BigInt64Array | Int32Array | Uint8Array;

export interface TensorValue {
  readonly data: TensorArray;
  readonly dims: readonly number[];
  /** Needed only for bool (Uint8Array) tensors. */
  readonly type?: 'bool';
}

export type Feeds = Readonly<Record<string, TensorValue>>;
export type Fetched = Record<string, TensorValue>;

export interface SessionOptions {
  /**
   * Intra-op threads (default `defaultThreads()`, the cores Node may use). Not onnxruntime's own
   * default (0): it counts physical cores and chose one thread on a 2-vCPU machine, which halved
   * training and GEMM throughput.
   */
  readonly threads?: number;
  /** Graph optimisation level (default `all`). */
  readonly optimization?: 'disabled' | 'basic' | 'extended' | 'all';
  /**
   * Flush denormal floats to zero in onnxruntime's threads (`session.set_denormal_as_zero`). exp() of
   * masked attention scores (−1e9) and of tiny probabilities yields denormals, whose slow path made
   * softmax over causal masks about 2× slower and a training step ~13% slower. onnxruntime also sets
   * the mode on the thread that creates the session, where it changes JavaScript arithmetic on
   * denormals too: the worker runner enables it (its thread only runs onnxruntime), in-process
   * sessions and the local runner leave it off unless asked.
   */
  readonly flushDenormals?: boolean;
}

export interface OrtSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Feeds, fetches?: readonly string[]): Promise<Fetched>;
  dispose(): Promise<void>;
}

export function toOrtTensor(value: TensorValue): ort.Tensor {
  return new ort.Tensor(tensorTypeOf(value), value.data, [...value.dims]);
}

/** The data of output `name` of a run, checked to be a `type` array (e.g. `Float32Array`). */
export function outputData<T extends TensorArray>(
  out: Fetched,
  name: string,
  type: abstract new (...args: never[]) => T,
): T {
  const data = out[name]?.data;
  if (!(data instanceof type)) {
    throw new MageError('RUNNER_FAILURE', `The run returned no ${type.name} output '${name}'.`);
  }
  return data;
}

/**
 * The numeric runtime the learner computes with and its version (`{ "onnxruntime-node": "1.30.0" }`), for
 * machine records (core's `describeMachine({ runtime })`): another version may pick other kernels.
 */
export function runtimeVersions(): Record<string, string> {
  return { 'onnxruntime-node': ort.env.versions.node ?? ort.env.versions.common };
}

/** The intra-op thread count sessions use unless told otherwise: `os.availableParallelism()`. */
export function defaultThreads(): number {
  return availableParallelism();
}

/**
 * onnxruntime's options for a session with `options` (what `createOrtSession` passes; the worker's host,
 * `ort-host.js`, builds them with the same `sessionOptionsOf`). Exported for tools that open sessions
 * themselves, e.g. to profile.
 */
export function ortSessionOptions(options: SessionOptions = {}): ort.InferenceSession.SessionOptions {
  return sessionOptionsOf({ ...options, threads: options.threads ?? defaultThreads() });
}

export async function createOrtSession(model: Uint8Array, options: SessionOptions = {}): Promise<OrtSession> {
  let session: ort.InferenceSession;
  try {
    session = await ort.InferenceSession.create(model, ortSessionOptions(options));
  } catch (cause) {
    throw new MageError('MODEL_FORMAT', `onnxruntime rejected the model: ${String(cause)}`, { cause });
  }
  return {
    inputNames: session.inputNames,
    outputNames: session.outputNames,
    async run(feeds, fetches) {
      const ortFeeds: Record<string, ort.Tensor> = {};
      for (const [k, v] of Object.entries(feeds)) ortFeeds[k] = toOrtTensor(v);
      let result: ort.InferenceSession.ReturnType;
      try {
        result =
          fetches === undefined ? await session.run(ortFeeds) : await session.run(ortFeeds, [...fetches]);
      } catch (cause) {
        throw new MageError('RUNNER_FAILURE', `onnxruntime failed to run the model: ${String(cause)}`, {
          cause,
        });
      }
      const out: Fetched = {};
      for (const [k, t] of Object.entries(result)) {
        out[k] = { data: t.data as TensorArray, dims: [...t.dims] };
      }
      return out;
    },
    async dispose() {
      await session.release();
    },
  };
}
