/**
 * The memory / context-builder contract. The runner knows *what happened* (rules, initial
 * state, steps, outcomes, notes); a `MemoryV1` decides *what the policy sees*: it builds the chat
 * messages of every play turn and reflect turn, parses reflections into notes, and may keep cases across
 * meta-episodes (retrieval memories). Implementations live in `@mage-rl/reflection`; core only defines
 * the shapes so the runner can take any memory by injection.
 */

import type { AttemptOutcome, EnvObservationV1, PromptStyle, Seat } from '../interfaces/env';
import type { ChatMessage } from '../interfaces/policy';
import type { JsonObject } from '../json/json';

/**
 * `turn` (the paper's): every turn is one fresh prompt that re-renders rules, initial state, the memory
 * block and the recent history. `transcript`: one growing conversation per slot — env text as `user`
 * messages, the policy's responses as `assistant` messages carrying their token ids.
 */
export type ContextLayout = 'turn' | 'transcript';
export const CONTEXT_LAYOUTS: readonly ContextLayout[] = ['turn', 'transcript'];

/** One play turn of an attempt, as the memory sees it. */
export interface MemoryStepV1 {
  /** 0-based play turn inside the attempt. */
  readonly turn: number;
  /** The state text the agent acted from. */
  readonly observation: string;
  /** The state key of that state (without opponent id). */
  readonly anchor: string;
  readonly response: string;
  /** Response token ids (empty for text-only policies). */
  readonly responseTokens: readonly number[];
  /** Canonical action text when the response parsed to a legal action, `null` otherwise. */
  readonly action: string | null;
  /** The env's history line for this turn (agent move and opponent reply, or the invalid reason). */
  readonly event: string;
  readonly reward: number;
  readonly valid: boolean;
  /** The state text after the turn. */
  readonly nextObservation: string;
}

/** A reflect turn's exchange, kept so `transcript` layouts can replay it verbatim. */
export interface MemoryReflectionV1 {
  /** The prompt message the reflect turn ended with (the reflect instruction). */
  readonly prompt: string;
  readonly response: string;
  readonly responseTokens: readonly number[];
  /** The extracted note (empty when the `<remark>` tag was missing). */
  readonly note: string;
  readonly valid: boolean;
}

/** A finished attempt of the current meta-episode. */
export interface MemoryAttemptV1 {
  readonly attempt: number;
  /** The initial state text of this attempt (equal for every attempt unless the env deals anew). */
  readonly initialText: string;
  readonly steps: readonly MemoryStepV1[];
  readonly outcome: AttemptOutcome;
  /** Sum of the attempt's step rewards (R_k). */
  readonly return: number;
  /** Extra text the env reveals after the attempt (Kuhn showdown cards, Rock-Paper-Scissors' rounds), if any. */
  readonly reveal?: string;
  /** The reflect turn written after this attempt, once it ran. */
  readonly reflection?: MemoryReflectionV1;
}

/** Fixed facts of one slot's meta-episode, given when the slot starts. */
export interface MemorySlotInfoV1 {
  readonly envId: string;
  readonly envOptions: JsonObject;
  readonly style: PromptStyle;
  readonly layout: ContextLayout;
  /** Rules and goal text in the task's prompt style. */
  readonly rules: string;
  readonly opponentId: string | null;
  readonly seat: Seat;
  readonly taskSeed: number;
  /** K. */
  readonly attempts: number;
  readonly group: string;
  readonly slot: string;
}

/** What the memory sees when it builds a prompt. */
export interface MemoryViewV1 {
  /** The attempt being played, or — for a reflect turn — the attempt about to start (k ≥ 1). */
  readonly attempt: number;
  /** Initial state text of the current attempt (reflect turns: of the attempt just finished). */
  readonly initialText: string;
  /** Finished attempts of this meta-episode, oldest first (reflections attached once written). */
  readonly earlier: readonly MemoryAttemptV1[];
}

export interface MemoryPlayViewV1 extends MemoryViewV1 {
  /** Play turns of the current attempt so far. */
  readonly current: readonly MemoryStepV1[];
  /** The state the agent acts from now. */
  readonly observation: EnvObservationV1;
}

/** A reflect turn runs after `earlier[earlier.length - 1]` finished, before attempt `attempt`. */
export type MemoryReflectViewV1 = MemoryViewV1;

/** The outcome of parsing a reflect response. Never throws. */
export interface ParsedReflectionV1 {
  readonly note: string;
  /** False when the `<remark>…</remark>` tag was missing: the reflect row is flagged invalid. */
  readonly valid: boolean;
}

/** Per-slot memory state for one meta-episode. */
export interface MemorySlotV1 {
  /** Messages of a play turn; the last one is a `user` message ending with the current observation text. */
  playMessages(view: MemoryPlayViewV1): readonly ChatMessage[];
  /** Messages of a reflect turn; the last one is a `user` message asking for `<remark>…</remark>`. */
  reflectMessages(view: MemoryReflectViewV1): readonly ChatMessage[];
  parseReflection(response: string): ParsedReflectionV1;
  /**
   * Called once per finished attempt — after its reflect turn when one runs (so `reflection` is
   * attached), right away otherwise. Retrieval memories record the attempt here.
   */
  attemptEnded(attempt: MemoryAttemptV1): void;
}

export interface MemoryV1 {
  readonly specificationVersion: 'v1';
  /** `reflection`, `history`, `reflection+history`, `none`, `memento`, `a-mem` … */
  readonly id: string;
  /** Whether reflect turns run between attempts. */
  readonly reflects: boolean;
  /** Start the memory of one slot. The runner calls it in slot order. */
  createSlot(info: MemorySlotInfoV1): MemorySlotV1;
  /**
   * Called once after a run finished without error. Memories that persist across meta-episodes make
   * what the run's slots recorded visible to later runs here (slots of one run never see each other's
   * cases, so results do not depend on scheduling).
   */
  commit?(): void;
}

/** Default stop strings of the two phases. */
export const PLAY_STOP = '</action>';
export const REFLECT_STOP = '</remark>';

/** Plain text of a chat prompt (stored in `RowRecord.promptText`). One message: its content. */
export function messagesToText(messages: readonly ChatMessage[]): string {
  if (messages.length === 1) return (messages[0] as ChatMessage).content;
  return messages.map((m) => `<|${m.role}|>\n${m.content}`).join('\n');
}
