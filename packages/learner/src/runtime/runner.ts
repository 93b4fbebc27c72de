/**
 * A graph runner owns onnxruntime sessions keyed by name (one per graph and bucket) and a set of
 * persistent feeds (the weights) merged into every run. `createLocalRunner` runs sessions on the
 * calling thread; `createWorkerRunner` (worker.ts) runs them in a worker thread with the same interface.
 */

import { InvalidArgumentError } from '@mage-rl/core';
import {
  createOrtSession,
  type Feeds,
  type Fetched,
  type OrtSession,
  type SessionOptions,
  type TensorValue,
} from './session';

export interface GraphRunner {
  /** True if a session with this key is loaded. */
  has(key: string): boolean;
  /** Creates the session `key` from an ONNX model unless it exists (least recently used ones are evicted). */
  load(key: string, model: () => Uint8Array): Promise<void>;
  /** Replaces persistent feeds (e.g. weights after an optimizer step). */
  setPersistent(values: Readonly<Record<string, TensorValue>>): Promise<void>;
  run(key: string, feeds: Feeds, fetches?: readonly string[]): Promise<Fetched>;
  dispose(): Promise<void>;
}

export interface RunnerOptions extends SessionOptions {
  /** Sessions kept at most (default 16). */
  readonly maxSessions?: number;
}

export function createLocalRunner(options: RunnerOptions = {}): GraphRunner {
  const sessions = new Map<string, OrtSession>();
  const persistent = new Map<string, TensorValue>();
  const max = options.maxSessions ?? 16;
  return {
    has: (key) => sessions.has(key),
    async load(key, model) {
      const existing = sessions.get(key);
      if (existing !== undefined) {
        sessions.delete(key);
        sessions.set(key, existing);
        return;
      }
      const session = await createOrtSession(model(), options);
      sessions.set(key, session);
      while (sessions.size > max) {
        const [oldest, s] = sessions.entries().next().value as [string, OrtSession];
        sessions.delete(oldest);
        await s.dispose();
      }
    },
    async setPersistent(values) {
      for (const [k, v] of Object.entries(values)) persistent.set(k, v);
    },
    async run(key, feeds, fetches) {
      const session = sessions.get(key);
      if (session === undefined) throw new InvalidArgumentError(`No session '${key}' is loaded.`);
      const all: Record<string, TensorValue> = {};
      for (const name of session.inputNames) {
        const v = feeds[name] ?? persistent.get(name);
        if (v === undefined) throw new InvalidArgumentError(`Session '${key}' needs input '${name}'.`);
        all[name] = v;
      }
      return session.run(all, fetches);
    },
    async dispose() {
      for (const s of sessions.values()) await s.dispose();
      sessions.clear();
    },
  };
}
