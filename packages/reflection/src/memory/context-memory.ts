/**
 * The context builder behind every memory mode: it lays out play and reflect prompts in the `turn` and
 * `transcript` layouts (SPEC §4) from what a mode shows of earlier attempts (notes, history, a retrieved
 * block).
 */

import type {
  ChatMessage,
  MemoryAttemptV1,
  MemoryPlayViewV1,
  MemoryReflectViewV1,
  MemorySlotInfoV1,
  MemorySlotV1,
  MemoryStepV1,
  MemoryV1,
  ParsedReflectionV1,
  PromptStyle,
} from '@mage-rl/core';
import { ConfigError } from '@mage-rl/core';
import {
  attemptHeading,
  attemptHistory,
  attemptSummary,
  currentStateBlock,
  finishedHeading,
  historyHeading,
  memoryHeading,
  noteLine,
  outcomePhrase,
  reflectInstruction,
  rulesAndStart,
  stepLine,
} from '../prompts/phrases';
import { extractRemark, MAX_NOTE_CHARS } from '../tags';

export interface LayoutOptions {
  /** Turn layout: how many recent steps of the current attempt to show. Default 7 (SPEC §4). */
  readonly historyWindow?: number;
  /** Turn layout: how many of the most recent steps also show the state they acted from. Default 2. */
  readonly observationWindow?: number;
  /** Longest note kept from a reflection. Default 2000. */
  readonly maxNoteChars?: number;
}

/** Per-slot hooks of a retrieval memory. */
export interface RetrievalSlot {
  /** The retrieved block shown during `attempt` (empty string: nothing). Called once per attempt. */
  block(attempt: number, initialText: string, earlier: readonly MemoryAttemptV1[]): string;
  attemptEnded(attempt: MemoryAttemptV1): void;
}

export interface ContextMemorySpec extends LayoutOptions {
  readonly id: string;
  readonly reflects: boolean;
  /** Show the notes of earlier attempts. */
  readonly notes: boolean;
  /** Show the play history of earlier attempts. */
  readonly history: boolean;
  readonly retrieval?: {
    createSlot(info: MemorySlotInfoV1): RetrievalSlot;
    commit(): void;
  };
}

function nonNegativeInt(value: number, path: string): number {
  if (!Number.isInteger(value) || value < 0) {
    throw new ConfigError(`${path} must be a non-negative integer, got ${String(value)}.`, { path });
  }
  return value;
}

/** Accumulates chat messages, merging consecutive `user` texts into one message. */
class Conversation {
  readonly messages: ChatMessage[] = [];
  private pending: string[] = [];

  user(text: string): void {
    if (text) this.pending.push(text);
  }

  assistant(content: string, tokens: readonly number[]): void {
    this.flush();
    this.messages.push(
      tokens.length > 0 ? { role: 'assistant', content, tokens } : { role: 'assistant', content },
    );
  }

  finish(): ChatMessage[] {
    this.flush();
    return this.messages;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.messages.push({ role: 'user', content: this.pending.join('\n') });
    this.pending = [];
  }
}

/** Builds a `MemoryV1` from a mode description. */
export function createContextMemory(spec: ContextMemorySpec): MemoryV1 {
  const historyWindow = nonNegativeInt(spec.historyWindow ?? 7, 'historyWindow');
  const observationWindow = nonNegativeInt(spec.observationWindow ?? 2, 'observationWindow');
  const maxNoteChars = nonNegativeInt(spec.maxNoteChars ?? MAX_NOTE_CHARS, 'maxNoteChars');
  const retrieval = spec.retrieval;

  return {
    specificationVersion: 'v1',
    id: spec.id,
    reflects: spec.reflects,
    ...(retrieval ? { commit: () => retrieval.commit() } : {}),
    createSlot(info: MemorySlotInfoV1): MemorySlotV1 {
      const style: PromptStyle = info.style;
      const sep = style === 'compact' ? '\n' : '\n\n';
      const retrievalSlot = retrieval?.createSlot(info);
      const blocks = new Map<number, string>();
      const retrieved = (
        attempt: number,
        initialText: string,
        earlier: readonly MemoryAttemptV1[],
      ): string => {
        if (!retrievalSlot) return '';
        let block = blocks.get(attempt);
        if (block === undefined) {
          block = retrievalSlot.block(
            attempt,
            initialText,
            earlier.filter((a) => a.attempt < attempt),
          );
          blocks.set(attempt, block);
        }
        return block;
      };

      /** What the mode shows of earlier attempts in the turn layout. */
      const earlierBlock = (earlier: readonly MemoryAttemptV1[]): string =>
        earlier
          .map((a) => {
            const parts: string[] = [];
            if (spec.history) parts.push(attemptHistory(a, style));
            if (spec.notes) parts.push(noteLine(a, style));
            return parts.join('\n');
          })
          .filter((t) => t.length > 0)
          .join('\n');

      const memorySection = (
        earlier: readonly MemoryAttemptV1[],
        attempt: number,
        initialText: string,
      ): string => {
        const own = earlierBlock(earlier);
        return [retrieved(attempt, initialText, earlier), own ? `${memoryHeading(style)}\n${own}` : '']
          .filter((t) => t.length > 0)
          .join(style === 'compact' ? '\n' : '\n\n');
      };

      // ---- transcript layout ----
      const opening = (
        conv: Conversation,
        attempt: number,
        initialText: string,
        earlier: readonly MemoryAttemptV1[],
        first: string,
      ) => {
        conv.user(attemptHeading(attempt, info.attempts, style));
        conv.user(retrieved(attempt, initialText, earlier));
        conv.user(currentStateBlock(first, style));
      };

      const steps = (
        conv: Conversation,
        list: readonly MemoryStepV1[],
        last: (s: MemoryStepV1) => string,
      ) => {
        list.forEach((s, j) => {
          conv.assistant(s.response, s.responseTokens);
          conv.user(j < list.length - 1 ? `${s.event}\n${s.nextObservation}` : last(s));
        });
      };

      const finishedText = (a: MemoryAttemptV1, s: MemoryStepV1): string =>
        [s.event, a.reveal ?? '', outcomePhrase(a.outcome, style)].filter((t) => t.length > 0).join('\n');

      const appendFinished = (
        conv: Conversation,
        a: MemoryAttemptV1,
        earlier: readonly MemoryAttemptV1[],
        full: boolean,
      ): void => {
        if (full) {
          opening(conv, a.attempt, a.initialText, earlier, a.steps[0]?.observation ?? a.initialText);
          steps(conv, a.steps, (s) => finishedText(a, s));
        } else if (spec.notes && a.reflection) {
          conv.user(attemptSummary(a.attempt, info.attempts, a.outcome, style));
        }
        if (spec.notes && a.reflection) {
          conv.user(reflectInstruction(a.outcome, style));
          conv.assistant(a.reflection.response, a.reflection.responseTokens);
        }
      };

      const transcriptEarlier = (conv: Conversation, earlier: readonly MemoryAttemptV1[]) => {
        conv.user(info.rules);
        for (const a of earlier) appendFinished(conv, a, earlier, spec.history);
      };

      return {
        playMessages(view: MemoryPlayViewV1): readonly ChatMessage[] {
          if (info.layout === 'transcript') {
            const conv = new Conversation();
            transcriptEarlier(conv, view.earlier);
            opening(
              conv,
              view.attempt,
              view.initialText,
              view.earlier,
              view.current[0]?.observation ?? view.observation.text,
            );
            steps(conv, view.current, (s) => `${s.event}\n${view.observation.text}`);
            return conv.finish();
          }
          const parts = [rulesAndStart(info.rules, view.initialText, style)];
          const memory = memorySection(view.earlier, view.attempt, view.initialText);
          if (memory) parts.push(memory);
          parts.push(attemptHeading(view.attempt, info.attempts, style));
          const recent = view.current.slice(Math.max(0, view.current.length - historyWindow));
          if (recent.length > 0) {
            const lines = recent.map((s, i) => stepLine(s, recent.length - i <= observationWindow, style));
            parts.push(`${historyHeading(style)}\n${lines.join('\n')}`);
          }
          parts.push(currentStateBlock(view.observation.text, style));
          return [{ role: 'user', content: parts.join(sep) }];
        },

        reflectMessages(view: MemoryReflectViewV1): readonly ChatMessage[] {
          const finished = view.earlier[view.earlier.length - 1];
          const before = view.earlier.slice(0, -1);
          if (!finished)
            return [
              {
                role: 'user',
                content: reflectInstruction(
                  { success: false, draw: false, truncated: false, label: 'unknown' },
                  style,
                ),
              },
            ];
          if (info.layout === 'transcript') {
            const conv = new Conversation();
            transcriptEarlier(conv, before);
            opening(
              conv,
              finished.attempt,
              finished.initialText,
              before,
              finished.steps[0]?.observation ?? finished.initialText,
            );
            steps(conv, finished.steps, (s) => finishedText(finished, s));
            conv.user(reflectInstruction(finished.outcome, style));
            return conv.finish();
          }
          const parts = [rulesAndStart(info.rules, finished.initialText, style)];
          const memory = memorySection(before, finished.attempt, finished.initialText);
          if (memory) parts.push(memory);
          const lines = finished.steps.map((s) => stepLine(s, true, style));
          if (finished.reveal) lines.push(finished.reveal);
          parts.push(`${finishedHeading(finished.attempt, info.attempts, style)}\n${lines.join('\n')}`);
          parts.push(
            style === 'compact'
              ? outcomePhrase(finished.outcome, style)
              : `Result: ${outcomePhrase(finished.outcome, style)}.`,
          );
          parts.push(reflectInstruction(finished.outcome, style));
          return [{ role: 'user', content: parts.join(sep) }];
        },

        parseReflection(response: string): ParsedReflectionV1 {
          const { note, found } = extractRemark(response, maxNoteChars);
          return { note, valid: found };
        },

        attemptEnded(attempt: MemoryAttemptV1): void {
          retrievalSlot?.attemptEnded(attempt);
        },
      };
    },
  };
}
