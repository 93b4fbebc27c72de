// The session host shared by the in-process runner and the worker thread. Plain JavaScript on purpose:
// the worker loads this file directly, both from the sources (tests) and from dist/.

/** onnxruntime's element type of a tensor value (Uint8Array data is `bool` when its `type` says so). */
export function tensorTypeOf(value) {
  const d = value.data;
  if (d instanceof Float32Array) return 'float32';
  if (d instanceof Float64Array) return 'float64';
  if (d instanceof BigInt64Array) return 'int64';
  if (d instanceof Int32Array) return 'int32';
  return value.type === 'bool' ? 'bool' : 'uint8';
}

/**
 * onnxruntime's options for a session with `options` (`HostSessionOptions`; threads default to
 * onnxruntime's own choice, 0). The one place these options are set: `createOrtHost` and
 * `ortSessionOptions` (session.ts) both use it.
 */
export function sessionOptionsOf(options) {
  return {
    graphOptimizationLevel: options.optimization ?? 'all',
    intraOpNumThreads: options.threads ?? 0,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    enableMemPattern: options.memPattern ?? true,
    enableCpuMemArena: options.memArena ?? true,
    extra: {
      session: {
        ...(options.flushDenormals ? { set_denormal_as_zero: '1' } : {}),
        ...(options.spinning === false ? { 'intra_op.allow_spinning': '0' } : {}),
      },
    },
  };
}

/** @param {typeof import('onnxruntime-node')} ort */
export function createOrtHost(ort) {
  const sessions = new Map();
  const persistent = new Map();
  // The memory behind each allocated persistent tensor (see `allocate`).
  const backing = new Map();
  // Saved KV rows by id: per persistent tensor name, the row's first `length` positions [H, length, D].
  const saved = new Map();

  function fail(code, message) {
    const error = new Error(message);
    error.code = code;
    return error;
  }

  return {
    has(key) {
      return sessions.has(key);
    },
    async load(key, model, options) {
      if (sessions.has(key)) return;
      let session;
      try {
        session = await ort.InferenceSession.create(model, sessionOptionsOf(options));
      } catch (cause) {
        throw fail('MODEL_FORMAT', `onnxruntime rejected the model '${key}': ${String(cause)}`);
      }
      sessions.set(key, session);
    },
    async evict(key) {
      const s = sessions.get(key);
      sessions.delete(key);
      if (s !== undefined) await s.release();
    },
    setPersistent(values) {
      for (const [k, v] of Object.entries(values)) persistent.set(k, v);
    },
    /**
     * A zero float32 persistent tensor. Its memory is the largest one allocated under this name so far
     * (a view of its first elements when smaller): a generate call's KV buffers change shape from call
     * to call, and memory touched for the first time is slow to fault in.
     */
    allocate(name, dims) {
      const n = dims.reduce((p, d) => p * d, 1);
      let store = backing.get(name);
      if (store === undefined || store.length < n) {
        store = new Float32Array(n);
        backing.set(name, store);
      }
      const data = store.length === n ? store : store.subarray(0, n);
      data.fill(0);
      persistent.set(name, { data, dims: [...dims] });
    },
    /**
     * Runs `key`. Inputs missing from `feeds` come from the persistent tensors. Each scatter copies an
     * output [B, H, t, D] into persistent [B', H, S, D] at time `starts[b]` of row `rows[b]` (default b;
     * rows with start < 0 skipped). Returns the outputs named in `fetches` (all when absent).
     */
    async run(key, feeds, fetches, scatter) {
      const session = sessions.get(key);
      if (session === undefined) throw fail('INVALID_ARGUMENT', `No session '${key}' is loaded.`);
      const ortFeeds = {};
      for (const name of session.inputNames) {
        const v = feeds[name] ?? persistent.get(name);
        if (v === undefined) throw fail('INVALID_ARGUMENT', `Session '${key}' needs input '${name}'.`);
        ortFeeds[name] = new ort.Tensor(tensorTypeOf(v), v.data, v.dims);
      }
      let result;
      try {
        result = await session.run(ortFeeds);
      } catch (cause) {
        throw fail('RUNNER_FAILURE', `onnxruntime failed to run '${key}': ${String(cause)}`);
      }
      for (const s of scatter ?? []) {
        const out = result[s.output];
        const target = persistent.get(s.target);
        if (out === undefined || target === undefined) {
          throw fail('INVALID_ARGUMENT', `Cannot scatter '${s.output}' into '${s.target}'.`);
        }
        const [B, H, t, D] = out.dims;
        const S = target.dims[2];
        const src = out.data;
        const dst = target.data;
        for (let b = 0; b < B; b++) {
          const start = s.starts[b] ?? -1;
          if (start < 0) continue;
          const len = Math.min(t, S - start);
          const row = s.rows?.[b] ?? b;
          for (let h = 0; h < H; h++) {
            const from = (b * H + h) * t * D;
            dst.set(src.subarray(from, from + len * D), ((row * H + h) * S + start) * D);
          }
        }
      }
      const out = {};
      for (const [name, t] of Object.entries(result)) {
        if (fetches === undefined || fetches.includes(name)) out[name] = { data: t.data, dims: [...t.dims] };
      }
      return out;
    },
    /**
     * Copies positions [0, length) of row `row` of each persistent [B, H, S, D] tensor in `names` into
     * the saved entry `id` (replacing one of the same id).
     */
    saveKv(entries, names) {
      for (const { id, row, length } of entries) {
        const tensors = new Map();
        for (const name of names) {
          const t = persistent.get(name);
          if (t === undefined) throw fail('INVALID_ARGUMENT', `No persistent tensor '${name}' to save.`);
          const [, H, S, D] = t.dims;
          const data = new Float32Array(H * length * D);
          for (let h = 0; h < H; h++) {
            const from = (row * H + h) * S * D;
            data.set(t.data.subarray(from, from + length * D), h * length * D);
          }
          tensors.set(name, data);
        }
        saved.set(id, { length, tensors });
      }
    },
    /** Copies the first `length` positions of saved entry `id` into row `row` of each tensor in `names`. */
    restoreKv(entries, names) {
      for (const { id, row, length } of entries) {
        const entry = saved.get(id);
        if (entry === undefined || entry.length < length) {
          throw fail('INVALID_ARGUMENT', `No saved KV entry '${id}' of ${length} positions.`);
        }
        for (const name of names) {
          const t = persistent.get(name);
          const src = entry.tensors.get(name);
          if (t === undefined || src === undefined) {
            throw fail('INVALID_ARGUMENT', `Cannot restore '${name}' from saved KV entry '${id}'.`);
          }
          const [, H, S, D] = t.dims;
          for (let h = 0; h < H; h++) {
            const from = h * entry.length * D;
            t.data.set(src.subarray(from, from + length * D), (row * H + h) * S * D);
          }
        }
      }
    },
    dropKv(ids) {
      for (const id of ids) saved.delete(id);
    },
    async dispose() {
      for (const s of sessions.values()) await s.release();
      sessions.clear();
      persistent.clear();
      backing.clear();
      saved.clear();
    },
  };
}
