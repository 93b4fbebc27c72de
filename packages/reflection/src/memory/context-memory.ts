/**
 * The context builder behind every memory mode: it lays out play and reflect prompts in the `turn` and
 * `transcript` layouts (architecture/reflection.md) from what a mode shows of earlier attempts (notes,
 * history, a retrieved block).
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
} from '@mage-rl/spec';
import { ConfigError } from '@mage-rl/spec';
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
  /** Turn layout: how many recent steps of the current attempt to show. Default 7, as in the paper. */
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
      const retrievalSlot = retrieval?.createSlot(info);
      const slot: Slot = {
        spec,
        info,
        style: info.style,
        historyWindow,
        observationWindow,
        retrieved: cachedRetrieval(retrievalSlot),
      };
      return {
        playMessages(view: MemoryPlayViewV1): readonly ChatMessage[] {
          return info.layout === 'transcript' ? transcriptPlay(slot, view) : turnPlay(slot, view);
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
                  slot.style,
                ),
              },
            ];
          return info.layout === 'transcript'
            ? transcriptReflect(slot, finished, before)
            : turnReflect(slot, finished, before);
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

/** What one slot's prompts are built from. */
interface Slot {
  readonly spec: ContextMemorySpec;
  readonly info: MemorySlotInfoV1;
  readonly style: PromptStyle;
  readonly historyWindow: number;
  readonly observationWindow: number;
  /** The retrieved block shown during an attempt (computed once per attempt; empty without retrieval). */
  readonly retrieved: (attempt: number, initialText: string, earlier: readonly MemoryAttemptV1[]) => string;
}

/** The retrieval slot's block per attempt, asked once (with the attempts before it) and then reused. */
function cachedRetrieval(retrievalSlot: RetrievalSlot | undefined): Slot['retrieved'] {
  const blocks = new Map<number, string>();
  return (attempt, initialText, earlier) => {
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
}

/** Joins prompt parts: a line break in the compact style, a blank line in the verbose one. */
function separator(style: PromptStyle): string {
  return style === 'compact' ? '\n' : '\n\n';
}

// ---- turn layout ----

/** What the mode shows of earlier attempts in the turn layout. */
function earlierBlock({ spec, style }: Slot, earlier: readonly MemoryAttemptV1[]): string {
  return earlier
    .map((a) => {
      const parts: string[] = [];
      if (spec.history) parts.push(attemptHistory(a, style));
      if (spec.notes) parts.push(noteLine(a, style));
      return parts.join('\n');
    })
    .filter((t) => t.length > 0)
    .join('\n');
}

/** The retrieved block and the mode's own memory of earlier attempts (empty when there is neither). */
function memorySection(
  slot: Slot,
  earlier: readonly MemoryAttemptV1[],
  attempt: number,
  initialText: string,
): string {
  const own = earlierBlock(slot, earlier);
  return [slot.retrieved(attempt, initialText, earlier), own ? `${memoryHeading(slot.style)}\n${own}` : '']
    .filter((t) => t.length > 0)
    .join(separator(slot.style));
}

/** Turn layout play prompt: rules, memory, heading, the recent steps of this attempt, the current state. */
function turnPlay(slot: Slot, view: MemoryPlayViewV1): readonly ChatMessage[] {
  const { info, style, historyWindow, observationWindow } = slot;
  const parts = [rulesAndStart(info.rules, view.initialText, style)];
  const memory = memorySection(slot, view.earlier, view.attempt, view.initialText);
  if (memory) parts.push(memory);
  parts.push(attemptHeading(view.attempt, info.attempts, style));
  const recent = view.current.slice(Math.max(0, view.current.length - historyWindow));
  if (recent.length > 0) {
    const lines = recent.map((s, i) => stepLine(s, recent.length - i <= observationWindow, style));
    parts.push(`${historyHeading(style)}\n${lines.join('\n')}`);
  }
  parts.push(currentStateBlock(view.observation.text, style));
  return [{ role: 'user', content: parts.join(separator(style)) }];
}

/** Turn layout reflect prompt: rules, memory, the finished attempt's full history, its result. */
function turnReflect(
  slot: Slot,
  finished: MemoryAttemptV1,
  before: readonly MemoryAttemptV1[],
): readonly ChatMessage[] {
  const { info, style } = slot;
  const parts = [rulesAndStart(info.rules, finished.initialText, style)];
  const memory = memorySection(slot, before, finished.attempt, finished.initialText);
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
  return [{ role: 'user', content: parts.join(separator(style)) }];
}

// ---- transcript layout ----

/** An attempt's opening user text: its heading, the retrieved block, its first state. */
function opening(
  slot: Slot,
  conv: Conversation,
  attempt: number,
  initialText: string,
  earlier: readonly MemoryAttemptV1[],
  first: string,
): void {
  conv.user(attemptHeading(attempt, slot.info.attempts, slot.style));
  conv.user(slot.retrieved(attempt, initialText, earlier));
  conv.user(currentStateBlock(first, slot.style));
}

/** Each step's response, then its event and next state (`last` says what follows the last step). */
function addSteps(
  conv: Conversation,
  list: readonly MemoryStepV1[],
  last: (s: MemoryStepV1) => string,
): void {
  list.forEach((s, j) => {
    conv.assistant(s.response, s.responseTokens);
    conv.user(j < list.length - 1 ? `${s.event}\n${s.nextObservation}` : last(s));
  });
}

/** What follows the last step of a finished attempt: its event, the reveal, the result. */
function finishedText(style: PromptStyle, a: MemoryAttemptV1, s: MemoryStepV1): string {
  return [s.event, a.reveal ?? '', outcomePhrase(a.outcome, style)].filter((t) => t.length > 0).join('\n');
}

/** A finished earlier attempt: in full (`full`) or as a one-line result, then its reflect exchange. */
function appendFinished(
  slot: Slot,
  conv: Conversation,
  a: MemoryAttemptV1,
  earlier: readonly MemoryAttemptV1[],
  full: boolean,
): void {
  const { spec, info, style } = slot;
  if (full) {
    opening(slot, conv, a.attempt, a.initialText, earlier, a.steps[0]?.observation ?? a.initialText);
    addSteps(conv, a.steps, (s) => finishedText(style, a, s));
  } else if (spec.notes && a.reflection) {
    conv.user(attemptSummary(a.attempt, info.attempts, a.outcome, style));
  }
  if (spec.notes && a.reflection) {
    conv.user(reflectInstruction(a.outcome, style));
    conv.assistant(a.reflection.response, a.reflection.responseTokens);
  }
}

/** The rules and what the mode keeps of the earlier attempts. */
function transcriptEarlier(slot: Slot, conv: Conversation, earlier: readonly MemoryAttemptV1[]): void {
  conv.user(slot.info.rules);
  for (const a of earlier) appendFinished(slot, conv, a, earlier, slot.spec.history);
}

function transcriptPlay(slot: Slot, view: MemoryPlayViewV1): readonly ChatMessage[] {
  const conv = new Conversation();
  transcriptEarlier(slot, conv, view.earlier);
  opening(
    slot,
    conv,
    view.attempt,
    view.initialText,
    view.earlier,
    view.current[0]?.observation ?? view.observation.text,
  );
  addSteps(conv, view.current, (s) => `${s.event}\n${view.observation.text}`);
  return conv.finish();
}

function transcriptReflect(
  slot: Slot,
  finished: MemoryAttemptV1,
  before: readonly MemoryAttemptV1[],
): readonly ChatMessage[] {
  const conv = new Conversation();
  transcriptEarlier(slot, conv, before);
  opening(
    slot,
    conv,
    finished.attempt,
    finished.initialText,
    before,
    finished.steps[0]?.observation ?? finished.initialText,
  );
  addSteps(conv, finished.steps, (s) => finishedText(slot.style, finished, s));
  conv.user(reflectInstruction(finished.outcome, slot.style));
  return conv.finish();
}
