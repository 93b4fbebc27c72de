/**
 * The generator's prefix KV cache index: which token sequences have their keys/values saved in the
 * runner, how many bytes they take, and which to evict. The keys/values themselves stay where the
 * sessions live (`GraphRunner.saveKv`); this index only plans. A meta-episode's next turn repeats its
 * whole transcript as the prompt, so its longest common prefix with the sequence saved after the last
 * turn is that whole sequence: only the new tokens are prefilled. See architecture/learner.md.
 */

export interface PrefixCacheOptions {
  /**
   * Bytes of saved keys/values kept at most; the least recently used sequences are evicted first.
   * 0 disables the cache.
   */
  readonly maxBytes: number;
  /**
   * The version of the weights the runner holds: saved keys/values of another version are dropped.
   * Without it the cache assumes the weights never change.
   */
  readonly weightsVersion?: () => number;
  /** Shortest common prefix worth reusing, in tokens (default `MIN_PREFIX_TOKENS`). */
  readonly minTokens?: number;
}

/** Default budget of a learner's prefix cache: 256 MiB (mage-tiny holds 2 KiB per token: 128 k tokens). */
export const DEFAULT_PREFIX_CACHE_BYTES = 256 * 2 ** 20;

/** Below this many shared tokens a cached sequence is not reused (one prefill bucket of 16 positions). */
export const MIN_PREFIX_TOKENS = 16;

/** A saved sequence of a prompt `prompt`'s longest match. */
export interface PrefixMatch {
  readonly id: string;
  /** Positions reused: the common prefix, at most the prompt's length − 1 (one token is run). */
  readonly length: number;
  /** The whole saved sequence is reused (a sequence saved from this call supersedes it). */
  readonly whole: boolean;
}

export interface PrefixIndex {
  /** Bytes of all saved sequences. */
  readonly bytes: number;
  readonly size: number;
  /** The saved sequence sharing the longest prefix with `prompt` (at least `minTokens`), marked as used. */
  match(prompt: readonly number[]): PrefixMatch | undefined;
  /**
   * Plans to save `sequences` after dropping `superseded` ids: returns one id per sequence (undefined
   * when it is not kept: larger than the budget, or evicted by later ones of the same call) and the ids
   * of saved sequences to drop (superseded and evicted), which the caller drops before saving.
   */
  add(
    sequences: readonly (readonly number[])[],
    superseded: Iterable<string>,
  ): { ids: (string | undefined)[]; dropped: string[] };
  /** Forgets everything; returns the ids to drop. */
  clear(): string[];
}

interface Entry {
  readonly id: string;
  readonly tokens: readonly number[];
  readonly bytes: number;
  lastUse: number;
  /** Planned in the current `add` (not saved yet). */
  fresh: boolean;
}

/** Length of the common prefix of `a` and `b`, at most `limit`. */
function commonPrefix(a: readonly number[], b: readonly number[], limit: number): number {
  const n = Math.min(a.length, b.length, limit);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

export function createPrefixIndex(options: {
  readonly maxBytes: number;
  readonly bytesPerToken: number;
  readonly minTokens?: number;
  /** Prefix of the saved entries' ids (sessions of several models may share a runner). */
  readonly idPrefix: string;
}): PrefixIndex {
  const { maxBytes, bytesPerToken, idPrefix } = options;
  const minTokens = Math.max(1, options.minTokens ?? MIN_PREFIX_TOKENS);
  const entries = new Map<string, Entry>();
  let total = 0;
  let clock = 0;
  let nextId = 0;
  const remove = (id: string): Entry | undefined => {
    const e = entries.get(id);
    if (e === undefined) return undefined;
    entries.delete(id);
    total -= e.bytes;
    return e;
  };
  /** The least recently used entry. */
  const oldest = (): Entry | undefined => {
    let best: Entry | undefined;
    for (const e of entries.values()) if (best === undefined || e.lastUse < best.lastUse) best = e;
    return best;
  };
  return {
    get bytes() {
      return total;
    },
    get size() {
      return entries.size;
    },
    match(prompt) {
      let best: Entry | undefined;
      let bestLength = 0;
      for (const e of entries.values()) {
        const n = commonPrefix(e.tokens, prompt, prompt.length - 1);
        if (n > bestLength) {
          best = e;
          bestLength = n;
        }
      }
      if (best === undefined || bestLength < minTokens) return undefined;
      best.lastUse = ++clock;
      return { id: best.id, length: bestLength, whole: bestLength === best.tokens.length };
    },
    add(sequences, superseded) {
      const dropped: string[] = [];
      for (const id of new Set(superseded)) if (remove(id) !== undefined) dropped.push(id);
      const ids = sequences.map((tokens) => {
        const bytes = tokens.length * bytesPerToken;
        if (bytes > maxBytes || tokens.length === 0) return undefined;
        while (total + bytes > maxBytes) {
          const victim = oldest() as Entry;
          remove(victim.id);
          if (!victim.fresh) dropped.push(victim.id);
        }
        const id = `${idPrefix}${nextId++}`;
        entries.set(id, { id, tokens: [...tokens], bytes, lastUse: ++clock, fresh: true });
        total += bytes;
        return id;
      });
      for (const e of entries.values()) e.fresh = false;
      return { ids: ids.map((id) => (id !== undefined && entries.has(id) ? id : undefined)), dropped };
    },
    clear() {
      const ids = [...entries.keys()];
      entries.clear();
      total = 0;
      return ids;
    },
  };
}
