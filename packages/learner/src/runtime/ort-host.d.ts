import type * as ort from 'onnxruntime-node';
import type { Fetched, TensorValue } from './session';

export interface KvScatter {
  readonly output: string;
  readonly target: string;
  readonly starts: readonly number[];
  /** The target's batch row of each output row (default the same row). */
  readonly rows?: readonly number[];
}

/** A row of the KV buffers and a saved entry: positions [0, length) of batch row `row`. */
export interface KvRowRef {
  readonly id: string;
  readonly row: number;
  readonly length: number;
}

export interface HostSessionOptions {
  readonly threads?: number;
  readonly optimization?: 'disabled' | 'basic' | 'extended' | 'all';
  /** onnxruntime's `session.set_denormal_as_zero` (also sets the creating thread's FTZ/DAZ mode). */
  readonly flushDenormals?: boolean;
  /** onnxruntime's memory pattern (default on; see `LoadOptions.memPattern`). */
  readonly memPattern?: boolean;
  /** onnxruntime's CPU memory arena (default on; see `LoadOptions.memArena`). */
  readonly memArena?: boolean;
  /** Whether the intra-op threads spin while waiting for work (default on; see `LoadOptions.spinning`). */
  readonly spinning?: boolean;
}

export interface OrtHost {
  has(key: string): boolean;
  load(key: string, model: Uint8Array, options: HostSessionOptions): Promise<void>;
  evict(key: string): Promise<void>;
  setPersistent(values: Readonly<Record<string, TensorValue>>): void;
  allocate(name: string, dims: readonly number[]): void;
  run(
    key: string,
    feeds: Readonly<Record<string, TensorValue>>,
    fetches: readonly string[] | undefined,
    scatter: readonly KvScatter[] | undefined,
  ): Promise<Fetched>;
  saveKv(entries: readonly KvRowRef[], names: readonly string[]): void;
  restoreKv(entries: readonly KvRowRef[], names: readonly string[]): void;
  dropKv(ids: readonly string[]): void;
  dispose(): Promise<void>;
}

export declare function tensorTypeOf(value: TensorValue): ort.Tensor.Type;

export declare function sessionOptionsOf(options: HostSessionOptions): ort.InferenceSession.SessionOptions;

export declare function createOrtHost(runtime: typeof ort): OrtHost;
