/** Asking a two-player env's opponent for its move, with the checks every env makes. */

import { type EnvTaskV1, type GameModelV1, InvalidArgumentError, RolloutError } from '@mage-rl/spec';

export interface OpponentMoveRequest<S, A> {
  readonly task: EnvTaskV1<S, A>;
  readonly game: GameModelV1<S, A>;
  /** The env's name in error messages (`Kuhn Poker`). */
  readonly label: string;
  readonly state: S;
  /** The player the opponent plays. */
  readonly player: number;
  /** The rng stream under `opponent` that this move draws from (`reset`, `attempt-1/turn-2` …). */
  readonly stream: string;
  readonly isLegal: (action: A) => boolean;
  /** The message of the error thrown for an illegal `action`. */
  readonly illegal: (opponentId: string, action: A) => string;
}

/**
 * The task opponent's move: it sees its observation of the state (the state itself in perfect-information
 * games). Throws an `InvalidArgumentError` when the task has no opponent and an `OPPONENT_FAILURE`
 * `RolloutError` when the move is illegal.
 */
export function opponentMove<S, A>(request: OpponentMoveRequest<S, A>): A {
  const { task, game, state, player } = request;
  const opponent = task.opponent;
  if (!opponent) {
    throw new InvalidArgumentError(`${request.label} needs an opponent in the task.`, {
      context: { seed: task.seed },
    });
  }
  const seen = game.observe ? game.observe(state, player) : state;
  const action = opponent.act(seen, { rng: task.rng.split('opponent').split(request.stream), player });
  if (!request.isLegal(action)) {
    throw new RolloutError('OPPONENT_FAILURE', request.illegal(opponent.id, action), {
      context: { opponent: opponent.id, state: game.stateKey(state) },
    });
  }
  return action;
}
