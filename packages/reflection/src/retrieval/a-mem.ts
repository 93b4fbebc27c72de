/**
 * `a-mem`-style note memory (a retrieval baseline): every reflection note is stored with
 * keywords, its task context and links to the most similar earlier notes; each attempt's prompts show
 * the notes most similar to the current task plus the notes they link to. Deterministic lexical
 * similarity, no embedding model; notes persist across meta-episodes (`commit()` after a run).
 */

import { ConfigError, type MemoryV1, type PromptStyle } from '@mage-rl/spec';
import { createContextMemory } from '../memory/context-memory';
import { addTokens, cosine, keywords, taskFeatures, words } from './lexical';
import { type RetrievalOptions, retrievalK, type StoredAttemptContext } from './retrieval-options';

export interface AMemNote extends StoredAttemptContext {
  /** 0-based id in commit order. */
  readonly id: number;
  readonly text: string;
  readonly keywords: readonly string[];
  /** Ids of linked notes (both directions). */
  readonly links: readonly number[];
}

export interface AMemOptions extends RetrievalOptions {
  /** Links made for a new note. Default 2. */
  readonly maxLinks?: number;
  /** Minimum similarity of a link. Default 0.3. */
  readonly linkThreshold?: number;
  /** Start from these notes (a saved `notes` list). */
  readonly notes?: readonly AMemNote[];
}

export interface AMemMemory extends MemoryV1 {
  /** Committed notes in id order (JSON-safe: save it and pass it back as `notes`). */
  readonly notes: readonly AMemNote[];
}

type Draft = Omit<AMemNote, 'id' | 'links'>;

function features(
  n: Pick<Draft, 'envId' | 'opponentId' | 'seat' | 'initialText'>,
  text = '',
  kw: readonly string[] = [],
) {
  const bag = taskFeatures(n.envId, n.opponentId, n.seat, n.initialText);
  addTokens(bag, 'k:', kw, 2);
  addTokens(bag, 'w:', words(text));
  return bag;
}

function noteLine(n: Draft, style: PromptStyle): string {
  if (style === 'compact') {
    return `- opponent ${n.opponentId ?? 'none'} ${n.success ? 'won' : 'lost'} : ${n.text}`;
  }
  return `- (opponent ${n.opponentId ?? 'none'}, ${n.label}; keywords: ${n.keywords.join(', ')}) ${n.text}`;
}

export function createAMemMemory(options: AMemOptions = {}): AMemMemory {
  const k = retrievalK(options);
  const maxLinks = options.maxLinks ?? 2;
  const threshold = options.linkThreshold ?? 0.3;
  if (!Number.isInteger(maxLinks) || maxLinks < 0) {
    throw new ConfigError(`maxLinks must be a non-negative integer, got ${maxLinks}.`, { path: 'maxLinks' });
  }
  interface Stored {
    note: Draft;
    id: number;
    links: number[];
    bag: Map<string, number>;
  }
  const store: Stored[] = (options.notes ?? []).map((n) => ({
    note: n,
    id: n.id,
    links: [...n.links],
    bag: features(n, n.text, n.keywords),
  }));
  let pending: Draft[][] = [];

  const memory = createContextMemory({
    ...options,
    id: 'a-mem',
    reflects: true,
    notes: false,
    history: false,
    retrieval: {
      createSlot(info) {
        const own: Stored[] = [];
        const mine: Draft[] = [];
        pending.push(mine);
        return {
          block(_attempt, initialText) {
            const query = features({
              envId: info.envId,
              opponentId: info.opponentId,
              seat: info.seat,
              initialText,
            });
            const pool = [...store, ...own].filter((s) => s.note.envId === info.envId);
            const ranked = pool
              .map((s, index) => ({ s, index, score: cosine(query, s.bag) }))
              .sort((a, b) => b.score - a.score || b.index - a.index);
            const chosen = ranked.slice(0, k).map((r) => r.s);
            const seen = new Set(chosen);
            for (const s of chosen.slice()) {
              for (const id of s.links) {
                const linked = store[id];
                if (linked && !seen.has(linked) && linked.note.envId === info.envId) {
                  seen.add(linked);
                  chosen.push(linked);
                }
              }
            }
            if (chosen.length === 0) return '';
            const heading = info.style === 'compact' ? 'notes :' : 'Related notes from your memory:';
            return [heading, ...chosen.map((s) => noteLine(s.note, info.style))].join('\n');
          },
          attemptEnded(attempt) {
            const text = attempt.reflection?.note ?? '';
            if (!text) return;
            const draft: Draft = {
              text,
              keywords: keywords(text),
              envId: info.envId,
              opponentId: info.opponentId,
              seat: info.seat,
              initialText: attempt.initialText,
              label: attempt.outcome.label,
              success: attempt.outcome.success,
            };
            mine.push(draft);
            own.push({ note: draft, id: -1, links: [], bag: features(draft, draft.text, draft.keywords) });
          },
        };
      },
      commit() {
        for (const list of pending) {
          for (const draft of list) {
            const bag = features(draft, draft.text, draft.keywords);
            const id = store.length;
            const links = store
              .map((s) => ({ s, score: cosine(bag, s.bag) }))
              .filter((x) => x.score >= threshold)
              .sort((a, b) => b.score - a.score || b.s.id - a.s.id)
              .slice(0, maxLinks)
              .map((x) => x.s);
            for (const l of links) l.links.push(id);
            store.push({ note: draft, id, links: links.map((l) => l.id), bag });
          }
        }
        pending = [];
      },
    },
  });
  return Object.defineProperty(memory, 'notes', {
    get: (): readonly AMemNote[] => store.map((s) => ({ ...s.note, id: s.id, links: s.links.slice() })),
    enumerable: true,
  }) as AMemMemory;
}
