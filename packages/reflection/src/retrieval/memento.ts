/**
 * `memento`-style case memory (a retrieval baseline): finished attempts are stored as cases
 * with their outcome; each attempt's prompts show the most similar cases, by lexical similarity of
 * env, opponent, seat and initial state. Cases persist across meta-episodes (`commit()` after a run).
 */

import {
  ConfigError,
  type MemoryAttemptV1,
  type MemorySlotInfoV1,
  type MemoryV1,
  type PromptStyle,
} from '@mage-rl/spec';
import { createContextMemory } from '../memory/context-memory';
import { resultWord } from '../prompts/phrases';
import { cosine, taskFeatures } from './lexical';
import { type RetrievalOptions, retrievalK, type StoredAttemptContext } from './retrieval-options';

export interface MementoCase extends StoredAttemptContext {
  /** Canonical action per play turn (`invalid` for invalid turns). */
  readonly actions: readonly string[];
  /** The env's history line per play turn. */
  readonly events: readonly string[];
  readonly draw: boolean;
  readonly return: number;
}

export interface MementoOptions extends RetrievalOptions {
  /** Oldest cases are dropped beyond this many. Default 1000. */
  readonly maxCases?: number;
  /** Run reflect turns too (their notes are not shown). Default false. */
  readonly reflect?: boolean;
  /** Start from these cases (a saved `cases` list). */
  readonly cases?: readonly MementoCase[];
}

export interface MementoMemory extends MemoryV1 {
  /** Committed cases, oldest first (JSON-safe: save it and pass it back as `cases`). */
  readonly cases: readonly MementoCase[];
}

export function caseFromAttempt(info: MemorySlotInfoV1, attempt: MemoryAttemptV1): MementoCase {
  return {
    envId: info.envId,
    opponentId: info.opponentId,
    seat: info.seat,
    initialText: attempt.initialText,
    actions: attempt.steps.map((s) => s.action ?? 'invalid'),
    events: attempt.steps.map((s) => s.event),
    label: attempt.outcome.label,
    success: attempt.outcome.success,
    draw: attempt.outcome.draw,
    return: attempt.return,
  };
}

function caseLine(c: MementoCase, i: number, style: PromptStyle): string {
  if (style === 'compact') {
    const outcome = { success: c.success, draw: c.draw, truncated: false, label: c.label };
    return `case ${i + 1} opponent ${c.opponentId ?? 'none'} result : ${resultWord(outcome)} . moves : ${c.events.join(' , ')}`;
  }
  return `Case ${i + 1} (opponent ${c.opponentId ?? 'none'}, you played ${c.seat}, result: ${c.label}, return ${c.return}): ${c.events.join('; ')}`;
}

export function createMementoMemory(options: MementoOptions = {}): MementoMemory {
  const k = retrievalK(options);
  const maxCases = options.maxCases ?? 1000;
  if (!Number.isInteger(maxCases) || maxCases < 1) {
    throw new ConfigError(`maxCases must be a positive integer, got ${maxCases}.`, { path: 'maxCases' });
  }
  let committed: { c: MementoCase; bag: Map<string, number> }[] = (options.cases ?? []).map((c) => ({
    c,
    bag: taskFeatures(c.envId, c.opponentId, c.seat, c.initialText),
  }));
  let pending: MementoCase[][] = [];

  const memory = createContextMemory({
    ...options,
    id: 'memento',
    reflects: options.reflect ?? false,
    notes: false,
    history: false,
    retrieval: {
      createSlot(info) {
        const own: { c: MementoCase; bag: Map<string, number> }[] = [];
        const mine: MementoCase[] = [];
        pending.push(mine);
        return {
          block(_attempt, initialText) {
            const query = taskFeatures(info.envId, info.opponentId, info.seat, initialText);
            const pool = [...committed, ...own].map((entry, index) => ({ ...entry, index }));
            const ranked = pool
              .filter((e) => e.c.envId === info.envId)
              .map((e) => ({ e, score: cosine(query, e.bag) }))
              .sort(
                (a, b) =>
                  b.score - a.score || Number(b.e.c.success) - Number(a.e.c.success) || b.e.index - a.e.index,
              )
              .slice(0, k);
            if (ranked.length === 0) return '';
            const heading = info.style === 'compact' ? 'cases :' : 'Similar past cases (most similar first):';
            return [heading, ...ranked.map((r, i) => caseLine(r.e.c, i, info.style))].join('\n');
          },
          attemptEnded(attempt) {
            const c = caseFromAttempt(info, attempt);
            own.push({ c, bag: taskFeatures(c.envId, c.opponentId, c.seat, c.initialText) });
            mine.push(c);
          },
        };
      },
      commit() {
        for (const list of pending) {
          for (const c of list)
            committed.push({ c, bag: taskFeatures(c.envId, c.opponentId, c.seat, c.initialText) });
        }
        pending = [];
        if (committed.length > maxCases) committed = committed.slice(committed.length - maxCases);
      },
    },
  });
  return Object.defineProperty(memory, 'cases', {
    get: (): readonly MementoCase[] => committed.map((e) => e.c),
    enumerable: true,
  }) as MementoMemory;
}
