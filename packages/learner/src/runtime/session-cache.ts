/**
 * Which onnxruntime sessions a runner keeps. onnxruntime keeps each session's memory arena at the peak
 * of its largest run, so an idle session costs about what its run needs; the cache therefore counts
 * each session's estimated bytes against a budget as well as the sessions themselves. Eviction is
 * GreedyDual-Size: a session's priority is the inflation value plus its reload cost per byte (compiling
 * costs about the same for every bucket, growing the arena again costs its size), so large sessions
 * go first unless they were used since the smaller ones; the inflation value rises to each evicted
 * priority, which ages sessions that are not used again. Plain LRU would evict every session of a
 * cycle larger than the budget (micro-batches run their buckets in the same order every mini-batch).
 * See architecture/learner.md.
 */

/** Sessions kept at most (with budgets below this count is rarely what limits). */
export const DEFAULT_MAX_SESSIONS = 64;

/**
 * Estimated session bytes kept at most: 1 GiB. With it a `laptop` warm start peaks near 2 GB RSS
 * instead of 8.6 GB with 16 sessions and no byte budget.
 */
export const DEFAULT_MAX_SESSION_BYTES = 2 ** 30;

/** Bytes counted for a session loaded without an estimate. */
export const UNKNOWN_SESSION_BYTES = 64 * 2 ** 20;

/** Compiling a session costs about as much as growing its arena by this many bytes. */
const COMPILE_COST_BYTES = 64 * 2 ** 20;

export interface SessionCacheLimits {
  readonly maxSessions: number;
  readonly maxBytes: number;
}

export interface SessionCache {
  has(key: string): boolean;
  /** Marks `key` as used now (it must be cached). */
  touch(key: string): void;
  /**
   * The sessions to evict before `key` of `bytes` is loaded (never `key` itself); records it as loaded.
   */
  admit(key: string, bytes: number): string[];
  /** Forgets `key` (its load failed). */
  remove(key: string): void;
  /** Bytes of all cached sessions. */
  readonly bytes: number;
  readonly size: number;
  clear(): void;
}

export function createSessionCache(limits: SessionCacheLimits): SessionCache {
  // `used`: a counter that breaks ties of priority (the least recently used goes first).
  const sessions = new Map<string, { bytes: number; priority: number; used: number }>();
  let inflation = 0;
  let total = 0;
  let clock = 0;
  const priorityOf = (bytes: number) => inflation + 1 + COMPILE_COST_BYTES / Math.max(bytes, 1);
  /** The cached session of lowest priority other than `keep`. */
  const victim = (keep: string): string | undefined => {
    let best: string | undefined;
    let bestPriority = Number.POSITIVE_INFINITY;
    let bestUsed = Number.POSITIVE_INFINITY;
    for (const [key, s] of sessions) {
      if (key === keep) continue;
      if (s.priority < bestPriority || (s.priority === bestPriority && s.used < bestUsed)) {
        best = key;
        bestPriority = s.priority;
        bestUsed = s.used;
      }
    }
    return best;
  };
  return {
    has: (key) => sessions.has(key),
    touch(key) {
      const s = sessions.get(key);
      if (s === undefined) return;
      s.priority = priorityOf(s.bytes);
      s.used = ++clock;
    },
    admit(key, bytes) {
      const evicted: string[] = [];
      sessions.set(key, { bytes, priority: priorityOf(bytes), used: ++clock });
      total += bytes;
      while (sessions.size > limits.maxSessions || (total > limits.maxBytes && sessions.size > 1)) {
        const v = victim(key);
        if (v === undefined) break;
        const s = sessions.get(v) as { bytes: number; priority: number; used: number };
        inflation = s.priority;
        sessions.delete(v);
        total -= s.bytes;
        evicted.push(v);
      }
      return evicted;
    },
    remove(key) {
      const s = sessions.get(key);
      if (s === undefined) return;
      sessions.delete(key);
      total -= s.bytes;
    },
    get bytes() {
      return total;
    },
    get size() {
      return sessions.size;
    },
    clear() {
      sessions.clear();
      total = 0;
      inflation = 0;
    },
  };
}
