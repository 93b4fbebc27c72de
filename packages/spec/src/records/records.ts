/**
 * JSON-serialisable records of what happened in a rollout. Rows are the unit of credit assignment: one
 * row per policy call, with the advantage of the row given to every one of its response tokens.
 */

import type { AttemptOutcome, Seat } from '../interfaces/env';
import type { TurnPhase } from '../interfaces/policy';

/** Identity of a task: env id (+ the env's options), seed, opponent and seat determine the game. */
export interface TaskRecord {
  readonly envId: string;
  readonly seed: number;
  readonly opponentId: string | null;
  readonly seat: Seat;
}

export interface RowRecord {
  /** Group id: slots of a group share task seed, opponent and seat. */
  readonly group: string;
  readonly slot: string;
  readonly opponentId: string | null;
  /** 0-based attempt; a reflect row before attempt k has attempt k. */
  readonly attempt: number;
  /** 0-based play turn inside the attempt; reflect rows use -1. */
  readonly turn: number;
  readonly phase: TurnPhase;
  /** Play rows: env state key + opponent id; reflect rows: `reflection|<opponent id>`. */
  readonly anchor: string;
  readonly promptText: string;
  readonly responseText: string;
  readonly promptTokens: readonly number[];
  readonly responseTokens: readonly number[];
  /** Sampling log-probs of `responseTokens`. */
  readonly logprobs: readonly number[];
  /** Env step reward (0 for reflect rows and invalid turns). */
  readonly reward: number;
  /** False for unparseable/illegal actions and reflections missing their `<remark>` tag. */
  readonly valid: boolean;
  /**
   * Why a play turn was invalid: `format` (the response did not parse as an action) or `rule` (it parsed
   * but the env refused it, e.g. an occupied cell). Absent on valid turns and reflect rows.
   */
  readonly invalid?: 'format' | 'rule';
  /** The response stopped at its token budget (the policy's `finishReason` was `length`). */
  readonly cut?: true;
  /**
   * Reflect rows: the share of the finished attempt's facts (its distinct event lines and the env's reveal)
   * that the note states word for word, spacing aside. 1 for the warm-start teachers' factual notes; a note
   * that invents its facts scores near 0. Absent on play rows and in records written before it was measured.
   */
  readonly noteRecall?: number;
}

export interface AttemptRecord {
  readonly attempt: number;
  readonly outcome: AttemptOutcome;
  /** Sum of env step rewards of the attempt's play turns (R_k). */
  readonly return: number;
  readonly turns: number;
  readonly invalidTurns: number;
  /** The note written after this attempt (before the next one), if any. */
  readonly reflection?: string;
}

export interface SlotRecord {
  readonly slot: string;
  readonly group: string;
  readonly task: TaskRecord;
  /** Attempts actually played (fewer than K after an early stop). */
  readonly attempts: readonly AttemptRecord[];
}

export interface GroupRecord {
  readonly group: string;
  readonly task: TaskRecord;
  readonly slots: readonly string[];
}

/** Everything one batch of meta-episodes produced. */
export interface MetaEpisodeBatchRecord {
  readonly iteration: number;
  readonly attempts: number;
  readonly groups: readonly GroupRecord[];
  readonly slots: readonly SlotRecord[];
  readonly rows: readonly RowRecord[];
}
