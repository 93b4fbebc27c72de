import type { JsonObject } from '../json/json';
import type { Rng } from '../rng/rng';
import type { GameModelV1 } from './game-model';
import type { OpponentV1 } from './opponent';

/** `verbose`: natural-language rules for instruction models. `compact`: terse fixed grammar for mage-tiny. */
export type PromptStyle = 'verbose' | 'compact';
export const PROMPT_STYLES: readonly PromptStyle[] = ['verbose', 'compact'];

/** Which side the agent plays. `first` is player 0 of the game model. */
export type Seat = 'first' | 'second';

/** Result of parsing a model response. Parsers never throw. */
export type ParsedAction<A> =
  | { readonly valid: true; readonly action: A; readonly text: string }
  | { readonly valid: false; readonly reason: string };

/** How a finished attempt ended. */
export interface AttemptOutcome {
  /** Won (Tic-Tac-Toe), payoff > 0 (Kuhn), solved (Sokoban). */
  readonly success: boolean;
  readonly draw: boolean;
  /** Stopped by the turn limit. */
  readonly truncated: boolean;
  /** Short label: `win`, `loss`, `draw`, `truncated`, `solved`, `deadlock` … */
  readonly label: string;
}

/** What the agent sees of the current state. JSON-safe. */
export interface EnvObservationV1 {
  /** The current state rendered for the agent in the episode's prompt style, without history. */
  readonly text: string;
  /**
   * Key of the state the agent acts from, without history and without the opponent id: turns with equal
   * anchors (and opponents) share credit in step-level advantages.
   */
  readonly anchor: string;
  /** Extra JSON-safe facts (legal moves, the agent's card …). */
  readonly info: JsonObject;
}

/** Result of one agent turn. JSON-safe. */
export interface EnvStepV1 {
  readonly observation: EnvObservationV1;
  /** Env step reward of this turn (0 for invalid turns). */
  readonly reward: number;
  /** False when the response was unparseable or illegal: the state did not change. */
  readonly valid: boolean;
  /** What happened this turn as one history line: the agent's move and the opponent's reply. */
  readonly event: string;
  readonly done: boolean;
  /** Present when `done`. */
  readonly outcome?: AttemptOutcome;
}

/**
 * One concrete task: everything that determines it besides the env id and options, so (env, options,
 * seed, opponent, seat) replays the same game.
 */
export interface EnvTaskV1<S = unknown, A = unknown> {
  readonly seed: number;
  readonly seat: Seat;
  readonly style: PromptStyle;
  /** Absent for single-agent envs. */
  readonly opponent?: OpponentV1<S, A>;
  /** The env draws all its randomness (rooms, deals, opponent moves) from streams split off this one. */
  readonly rng: Rng;
}

/**
 * A stateful engine for one meta-episode on one task. `reset(k)` restores attempt k's initial state:
 * identical for every k unless the env documents a per-attempt mode (Kuhn `new-deal`).
 */
export interface EnvEpisodeV1<S = unknown, A = unknown> {
  readonly task: EnvTaskV1<S, A>;
  /** Start attempt `attempt` (0-based). */
  reset(attempt: number): EnvObservationV1;
  /** Play one agent turn. Invalid actions consume the turn and change nothing else. */
  step(action: ParsedAction<A>): EnvStepV1;
  /** Parse a response against the current state. Never throws. */
  parse(response: string): ParsedAction<A>;
  /** The full current state (may hold information hidden from the agent). */
  readonly state: S;
  /** Agent turns played in the current attempt (invalid ones included). */
  readonly turn: number;
  readonly done: boolean;
  /** Rules and goal text in the task's prompt style. */
  rules(): string;
  /** The current attempt's initial state rendered for the agent. */
  initialText(): string;
  /**
   * After an attempt ended: extra text the history record may reveal (Kuhn showdown cards when the env
   * option allows it, Rock-Paper-Scissors' rounds on one line); `undefined` otherwise, and always while
   * the attempt runs.
   */
  reveal(): string | undefined;
}

export interface EnvV1<S = unknown, A = unknown> {
  readonly specificationVersion: 'v1';
  /** `tictactoe`, `kuhn-poker`, `sokoban` … */
  readonly id: string;
  /** The resolved env options (JSON-safe), part of the task identity. */
  readonly options: JsonObject;
  readonly game: GameModelV1<S, A>;
  readonly promptStyles: readonly PromptStyle[];
  /** Agent turns per attempt (invalid turns count). */
  readonly maxTurns: number;
  /** Whether tasks need an opponent. */
  readonly needsOpponent: boolean;
  /** Create the engine for one meta-episode. */
  createEpisode(task: EnvTaskV1<S, A>): EnvEpisodeV1<S, A>;
  /** The text a policy would write to play `action`, `<action>` tags included. For teachers and tests. */
  formatAction(action: A, style: PromptStyle): string;
}

/** Anchor of a play turn: env state key plus opponent id (`none` without one), e.g. `nim:3|random`. */
export function playAnchor(stateAnchor: string, opponentId: string | undefined): string {
  return `${stateAnchor}|${opponentId ?? 'none'}`;
}

/** Anchor of a reflect turn: all reflect turns against one opponent share it, e.g. `reflection|random`. */
export function reflectAnchor(opponentId: string | undefined): string {
  return `reflection|${opponentId ?? 'none'}`;
}
