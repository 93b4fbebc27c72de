/**
 * A graph runner owns onnxruntime sessions keyed by name (one per graph and bucket) and persistent
 * tensors (the weights and the KV buffers) merged into every run. `createLocalRunner` runs sessions on
 * the calling thread; `createWorkerRunner` runs them in a worker thread (the main event loop stays
 * responsive) behind the same interface.
 */

import { Worker } from 'node:worker_threads';
import { MageError, type MageErrorCode } from '@mage-rl/core';
import * as ort from 'onnxruntime-node';
import {
  createOrtHost,
  type HostSessionOptions,
  type KvRowRef,
  type KvScatter,
  type OrtHost,
} from './ort-host';
import { sessionLoadChannel, sessionRunChannel } from './runner-events';
import { defaultThreads, type Feeds, type Fetched, type SessionOptions, type TensorValue } from './session';
import {
  createSessionCache,
  DEFAULT_MAX_SESSION_BYTES,
  DEFAULT_MAX_SESSIONS,
  type SessionCacheLimits,
  UNKNOWN_SESSION_BYTES,
} from './session-cache';

export type { KvRowRef, KvScatter } from './ort-host';

export interface RunOptions {
  /** Outputs to return (default all). */
  readonly fetches?: readonly string[];
  /** Copies of outputs into persistent KV buffers, done where the sessions live. */
  readonly scatter?: readonly KvScatter[];
}

export interface LoadOptions {
  /**
   * Intra-op threads of this session (default: the runner's). Small runs (a decode step at a small batch)
   * are faster on one thread than split across two.
   */
  readonly threads?: number;
  /**
   * Estimated bytes of this session's memory at its largest run (`estimateSessionBytes`), counted
   * against the runner's `maxSessionBytes`; `UNKNOWN_SESSION_BYTES` when absent.
   */
  readonly bytes?: number;
  /**
   * onnxruntime's memory pattern (default on): the first run records its allocations and the second
   * allocates them as one new block, so a session's memory is touched fresh twice. For the
   * large-vocabulary graphs (blocks of ~16 MB) that doubled the arena (0.94 vs 0.47 GB for 8 × 128
   * positions, 512 scored) and the second run cost as much as the first (~4.5 s of CPU against 1.3 s
   * once warm; touching fresh memory is slow on a VM), for no steady-state gain.
   */
  readonly memPattern?: boolean;
  /**
   * onnxruntime's CPU memory arena (default on). An arena grows to its session's largest run and keeps
   * that memory; the learner's many training and scoring sessions (one per bucket) each held their own,
   * most of a training process's peak RSS. Without it their runs allocate from the process heap, which
   * they share (architecture/learner.md, "Session memory").
   */
  readonly memArena?: boolean;
  /**
   * Whether onnxruntime's intra-op threads spin while they wait for work (default on). Spinning threads
   * of one session keep a core busy after its run; in an update, training runs alternate with the
   * optimizer on the main thread and with the reference model's scoring, so the spinning took the cores
   * those needed: a Higher-Lower recipe update iteration took 1.52–1.54 s without it against 2.13–2.63 s
   * with it, alternated in one period (architecture/learner.md).
   */
  readonly spinning?: boolean;
}

/**
 * Training runs of fewer positions than this get no memory arena (`arenaFor`). Their buffers are small
 * enough for the process heap to hand the same memory back run after run, so the sessions (one per bucket)
 * share it instead of each keeping its largest run's: a Higher-Lower recipe run peaked at 0.56 instead of
 * 1.5 GB, its update as fast. Larger training runs keep an arena: without one, warm-start updates of
 * 4 × 512 positions ran 1.4–1.6× slower (their buffers come from fresh pages every run). Forward-only
 * sessions (scoring, generation) never get one (architecture/learner.md, "Session memory").
 */
export const ARENA_MIN_POSITIONS = 2048;

/** Whether a training session whose runs hold `positions` (rows × length) gets a memory arena. */
export const arenaFor = (positions: number): boolean => positions >= ARENA_MIN_POSITIONS;

export interface PersistentOptions {
  /**
   * Hand the tensors' memory to the runner instead of copying it (default false). A worker runner
   * transfers their `ArrayBuffer`s to its thread, so the caller's arrays are detached (length 0)
   * afterwards and the process holds the values once; the local runner keeps the arrays themselves
   * (it never copies). Either way the caller must not use the arrays again. For weights uploaded once
   * and never read on this thread afterwards (an inference-only learner, a serving engine); a learner
   * that trains keeps its weights for the optimizer and uploads copies.
   */
  readonly transfer?: boolean;
}

export interface GraphRunner {
  has(key: string): boolean;
  /**
   * Creates the session `key` from an ONNX model unless it exists (sessions are evicted past the
   * runner's session count and byte budget).
   * `options` apply when the session is created.
   */
  load(key: string, model: () => Uint8Array, options?: LoadOptions): Promise<void>;
  /**
   * Replaces persistent tensors (e.g. weights after an optimizer step): copies of them, or the
   * tensors themselves with `options.transfer`.
   */
  setPersistent(values: Readonly<Record<string, TensorValue>>, options?: PersistentOptions): Promise<void>;
  /** Allocates a zeroed float32 persistent tensor (a KV buffer). */
  allocate(name: string, dims: readonly number[]): Promise<void>;
  run(key: string, feeds: Feeds, options?: RunOptions): Promise<Fetched>;
  /**
   * Saves rows of the persistent KV buffers `names` ([B, H, S, D]) as entries kept where the sessions
   * live (the generator's prefix cache). Optional: a runner without it generates without the cache.
   */
  saveKv?(entries: readonly KvRowRef[], names: readonly string[]): Promise<void>;
  /** Copies saved entries' first `length` positions into rows of the persistent KV buffers `names`. */
  restoreKv?(entries: readonly KvRowRef[], names: readonly string[]): Promise<void>;
  /** Forgets saved KV entries. */
  dropKv?(ids: readonly string[]): Promise<void>;
  dispose(): Promise<void>;
}

export interface RunnerOptions extends SessionOptions {
  /** Sessions kept at most (default `DEFAULT_MAX_SESSIONS`, 64). */
  readonly maxSessions?: number;
  /**
   * Estimated bytes of the kept sessions' memory at most (default `DEFAULT_MAX_SESSION_BYTES`, 1 GiB):
   * onnxruntime keeps each session's arena at its largest run, so idle sessions hold memory.
   */
  readonly maxSessionBytes?: number;
}

interface Backend {
  load(key: string, model: Uint8Array, options: HostSessionOptions): Promise<void>;
  evict(key: string): Promise<void>;
  setPersistent(values: Readonly<Record<string, TensorValue>>, transfer: boolean): Promise<void>;
  allocate(name: string, dims: readonly number[]): Promise<void>;
  run(key: string, feeds: Feeds, options: RunOptions): Promise<Fetched>;
  saveKv(entries: readonly KvRowRef[], names: readonly string[]): Promise<void>;
  restoreKv(entries: readonly KvRowRef[], names: readonly string[]): Promise<void>;
  dropKv(ids: readonly string[]): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * `backend`'s sessions under a memory-aware cache (`session-cache.ts`); each is created with `base`
 * and the load's own options on top.
 */
function cachedRunner(backend: Backend, base: HostSessionOptions, limits: SessionCacheLimits): GraphRunner {
  const cache = createSessionCache(limits);
  return {
    has: (key) => cache.has(key),
    async load(key, model, options = {}) {
      if (cache.has(key)) {
        cache.touch(key);
        return;
      }
      const { threads, bytes, memPattern, memArena, spinning } = options;
      const victims = cache.admit(key, bytes ?? UNKNOWN_SESSION_BYTES);
      for (const victim of victims) await backend.evict(victim);
      try {
        const t0 = performance.now();
        const bytesOfModel = model();
        const t1 = performance.now();
        await backend.load(key, bytesOfModel, {
          ...base,
          ...(threads === undefined ? {} : { threads }),
          ...(memPattern === undefined ? {} : { memPattern }),
          ...(memArena === undefined ? {} : { memArena }),
          ...(spinning === undefined ? {} : { spinning }),
        });
        if (sessionLoadChannel.hasSubscribers) {
          sessionLoadChannel.publish({
            key,
            buildMs: t1 - t0,
            compileMs: performance.now() - t1,
            bytes: bytes ?? UNKNOWN_SESSION_BYTES,
            evicted: victims.length,
          });
        }
      } catch (e) {
        cache.remove(key);
        throw e;
      }
    },
    setPersistent: (values, options = {}) => backend.setPersistent(values, options.transfer === true),
    allocate: (name, dims) => backend.allocate(name, dims),
    async run(key, feeds, options = {}) {
      if (!sessionRunChannel.hasSubscribers) return backend.run(key, feeds, options);
      const t0 = performance.now();
      const out = await backend.run(key, feeds, options);
      sessionRunChannel.publish({ key, ms: performance.now() - t0 });
      return out;
    },
    saveKv: (entries, names) => backend.saveKv(entries, names),
    restoreKv: (entries, names) => backend.restoreKv(entries, names),
    dropKv: (ids) => backend.dropKv(ids),
    async dispose() {
      cache.clear();
      await backend.dispose();
    },
  };
}

const limitsOf = (options: RunnerOptions): SessionCacheLimits => ({
  maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
  maxBytes: options.maxSessionBytes ?? DEFAULT_MAX_SESSION_BYTES,
});

function hostOptions(options: RunnerOptions, flushDenormals: boolean): HostSessionOptions {
  return {
    threads: options.threads ?? defaultThreads(),
    ...(options.optimization === undefined ? {} : { optimization: options.optimization }),
    flushDenormals: options.flushDenormals ?? flushDenormals,
  };
}

function toMageError(e: unknown): MageError {
  if (MageError.isInstance(e)) return e;
  const { message, code } = (e ?? {}) as { message?: string; code?: MageErrorCode };
  return new MageError(code ?? 'RUNNER_FAILURE', message ?? String(e), { cause: e });
}

/**
 * Sessions on the calling thread (`session.run` blocks the event loop while it computes). Denormals are
 * not flushed unless `flushDenormals` is set (it would change the calling thread's arithmetic).
 */
export function createLocalRunner(options: RunnerOptions = {}): GraphRunner {
  const host: OrtHost = createOrtHost(ort);
  const wrap = async <T>(f: () => Promise<T> | T): Promise<T> => {
    try {
      return await f();
    } catch (e) {
      throw toMageError(e);
    }
  };
  return cachedRunner(
    {
      load: (key, model, so) => wrap(() => host.load(key, model, so)),
      evict: (key) => wrap(() => host.evict(key)),
      // The host keeps the arrays themselves: nothing to copy or transfer on one thread.
      setPersistent: (values) => wrap(() => host.setPersistent(values)),
      allocate: (name, dims) => wrap(() => host.allocate(name, dims)),
      run: (key, feeds, o) => wrap(() => host.run(key, feeds, o.fetches, o.scatter)),
      saveKv: (entries, names) => wrap(() => host.saveKv(entries, names)),
      restoreKv: (entries, names) => wrap(() => host.restoreKv(entries, names)),
      dropKv: (ids) => wrap(() => host.dropKv(ids)),
      dispose: () => wrap(() => host.dispose()),
    },
    hostOptions(options, false),
    limitsOf(options),
  );
}

/**
 * The distinct `ArrayBuffer`s behind `values` (a transfer list: a buffer listed twice is refused).
 * Node copies buffers it cannot transfer (its small pooled `Buffer`s) instead of failing.
 */
function buffersOf(values: Readonly<Record<string, TensorValue>>): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const v of Object.values(values)) if (v.data.buffer instanceof ArrayBuffer) buffers.add(v.data.buffer);
  return [...buffers];
}

/**
 * Sessions in a worker thread. The worker entry is a plain JavaScript file next to this module (in
 * `src/runtime/` and in `dist/`), so it loads the same way from sources and from the build. Denormals
 * are flushed to zero by default (the worker thread runs nothing but onnxruntime).
 */
export function createWorkerRunner(options: RunnerOptions = {}): GraphRunner {
  const worker = new Worker(new URL('./ort-worker.js', import.meta.url));
  worker.unref();
  let nextId = 0;
  let failure: MageError | undefined;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  worker.on(
    'message',
    (msg: {
      id: number;
      ok: boolean;
      value?: unknown;
      error?: { message: string; code?: MageErrorCode };
    }) => {
      const p = pending.get(msg.id);
      if (p === undefined) return;
      pending.delete(msg.id);
      if (msg.ok) p.resolve(msg.value);
      else
        p.reject(new MageError(msg.error?.code ?? 'RUNNER_FAILURE', msg.error?.message ?? 'worker failure'));
    },
  );
  const failAll = (e: unknown) => {
    failure = new MageError('RUNNER_FAILURE', `The onnxruntime worker stopped: ${String(e)}`, { cause: e });
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
  };
  worker.on('error', failAll);
  worker.on('exit', (code) => {
    if (pending.size > 0) failAll(new Error(`exit code ${code}`));
  });
  const call = <T>(op: string, args: unknown, transfer: ArrayBuffer[] = []): Promise<T> => {
    if (failure !== undefined) return Promise.reject(failure);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.ref();
      worker.postMessage({ id, op, args }, transfer);
    }).finally(() => {
      if (pending.size === 0) worker.unref();
    });
  };
  return cachedRunner(
    {
      load: (key, model, so) => call('load', { key, model, options: so }),
      evict: (key) => call('evict', { key }),
      setPersistent: (values, transfer) =>
        call('setPersistent', { values }, transfer ? buffersOf(values) : []),
      allocate: (name, dims) => call('allocate', { name, dims }),
      run: (key, feeds, o) => call('run', { key, feeds, fetches: o.fetches, scatter: o.scatter }),
      saveKv: (entries, names) => call('saveKv', { entries, names }),
      restoreKv: (entries, names) => call('restoreKv', { entries, names }),
      dropKv: (ids) => call('dropKv', { ids }),
      async dispose() {
        try {
          await call('dispose', {});
        } finally {
          await worker.terminate();
        }
      },
    },
    hostOptions(options, true),
    limitsOf(options),
  );
}
