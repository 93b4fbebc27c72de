/**
 * What the two-player text envs (Tic-Tac-Toe, Kuhn Poker) add to `TurnEpisode`: the agent's seat as a
 * player of the game model, the task opponent's moves on their own rng streams (its opening when the
 * agent sits second, its reply after each agent turn), the agent's reward and outcome from the game
 * model's returns, and the `truncation` option.
 */

import type { AttemptOutcome, EnvTaskV1, GameModelV1, Seat } from '@mage-rl/spec';
import type { Truncation } from '../options/turn-options';
import { OUTCOME_DRAW, OUTCOME_LOSS, OUTCOME_TRUNCATED, OUTCOME_WIN } from './outcomes';
import { TurnEpisode } from './turn-episode';

/** Player index of the agent in a two-player game model: 0 moves first. */
export function seatPlayer(seat: Seat): 0 | 1 {
  return seat === 'second' ? 1 : 0;
}

/** The options every two-player env has. */
export interface TwoPlayerOptions {
  readonly maxTurns: number;
  readonly truncation: Truncation;
}

/** One agent turn played by `TwoPlayerEpisode.playRound`. */
export interface PlayedRound<S, A> {
  /** The state right after the agent's move. */
  readonly afterAgent: S;
  /** The opponent's reply; `undefined` when the agent's move ended the game. */
  readonly reply: A | undefined;
  /** The state after the whole round (the episode's current state now). */
  readonly state: S;
  /** The agent's return scaled by `rewardPerReturn()` when the game is over, else 0. */
  readonly reward: number;
}

/**
 * The episode of a two-player game against the task's opponent. The agent is player `agent`, the
 * opponent the other one. The env's game model decides when the game is over (`ended`), what the agent
 * scores and the outcome (`returns` of the agent: > 0 a win, < 0 a loss, 0 a draw), and which opponent
 * moves are legal.
 */
export abstract class TwoPlayerEpisode<S, A, O extends TwoPlayerOptions> extends TurnEpisode<S, A, O> {
  protected readonly game: GameModelV1<S, A>;
  /** The agent's player in the game model: 0 when it sits first, 1 when second. */
  protected readonly agent: 0 | 1;

  constructor(task: EnvTaskV1<S, A>, options: O, game: GameModelV1<S, A>) {
    super(task, options);
    this.game = game;
    this.agent = seatPlayer(task.seat);
  }

  /**
   * The step reward per unit of the game's return (Tic-Tac-Toe's win reward, Kuhn Poker's reward per
   * chip). With `truncation: 'loss'` an attempt stopped by the turn limit scores one unit lost: a lost
   * Tic-Tac-Toe game, a folded Kuhn hand (the agent is the one to act then, with only its ante in the pot).
   */
  protected abstract rewardPerReturn(): number;

  /** The message of the rollout error raised when the opponent plays the illegal `action`. */
  protected abstract illegalOpponentMove(opponentId: string, action: A): string;

  protected ended(): boolean {
    return this.game.isTerminal(this.current);
  }

  /**
   * `start` after the opponent's opening move when the agent sits second (`start` itself when it sits
   * first), so the opening is part of the restorable initial state. The move draws from the stream
   * `opponent/reset`, or `opponent/reset/attempt-k` when `attempt` k is given: an attempt that starts
   * from a state of its own (a Kuhn `new-deal` hand) opens on its own stream.
   */
  protected opened(start: S, attempt?: number): S {
    if (this.agent === 0) return start;
    const stream = this.openingStream(start, attempt);
    return this.game.apply(start, this.opponentReply(start, stream));
  }

  /**
   * The stream of the opponent's opening move from `start`: `reset`, or `reset/attempt-k` for an attempt
   * that starts from a state of its own. An env that keys its opponent by board overrides it.
   */
  protected openingStream(_start: S, attempt?: number): string {
    return attempt === undefined ? 'reset' : `reset/attempt-${attempt}`;
  }

  /**
   * The stream of the opponent's reply to `state` (right after the agent's move): `attempt-k/turn-t`, so a
   * stochastic opponent draws anew in every attempt. An env that keys its opponent by board overrides it.
   */
  protected replyStream(_state: S): string {
    return `attempt-${this.attempt}/turn-${this.turns}`;
  }

  /**
   * The agent's `action` (already checked legal) on the current state, then — unless that ended the
   * game — the opponent's reply from the stream `opponent/<replyStream>` (by default `attempt-k/turn-t`:
   * attempt k, agent turn t). The result becomes the current state.
   */
  protected playRound(action: A): PlayedRound<S, A> {
    const afterAgent = this.game.apply(this.current, action);
    let state = afterAgent;
    let reply: A | undefined;
    if (!this.game.isTerminal(afterAgent)) {
      reply = this.opponentReply(afterAgent, this.replyStream(afterAgent));
      state = this.game.apply(afterAgent, reply);
    }
    this.current = state;
    const reward = this.game.isTerminal(state) ? this.agentReturn(state) * this.rewardPerReturn() : 0;
    return { afterAgent, reply, state, reward };
  }

  /** The agent's return in `state` (0 before the game is over). */
  protected agentReturn(state: S): number {
    return this.game.returns(state)[this.agent] ?? 0;
  }

  /** With `truncation: 'loss'`, one unit of return lost (see `rewardPerReturn`). */
  protected override truncatedReward(reward: number): number {
    return this.options.truncation === 'loss' ? -this.rewardPerReturn() : reward;
  }

  protected outcome(): AttemptOutcome {
    if (!this.ended()) return OUTCOME_TRUNCATED;
    const r = this.agentReturn(this.current);
    return r > 0 ? OUTCOME_WIN : r < 0 ? OUTCOME_LOSS : OUTCOME_DRAW;
  }

  /** The opponent's move in `state` from the stream `opponent/<stream>`. */
  private opponentReply(state: S, stream: string): A {
    return this.opponentMove({
      game: this.game,
      state,
      player: 1 - this.agent,
      stream,
      isLegal: (action) => this.game.legalActions(state).includes(action),
      illegal: (id, action) => this.illegalOpponentMove(id, action),
    });
  }
}
