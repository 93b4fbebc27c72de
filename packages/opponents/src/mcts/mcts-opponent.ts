import type { TicTacToeAction, TicTacToeState } from '@mage-rl/envs/tictactoe';
import { InvalidArgumentError, type OpponentV1 } from '@mage-rl/spec';
import { createTicTacToeMcts } from './tictactoe-mcts';

export interface MctsOpponentOptions {
  /** Simulations per move (100 in training, 1000 out of domain). */
  readonly simulations: number;
  /** Default 1.4. */
  readonly exploration?: number;
  /** Default `mcts-<simulations>`. */
  readonly id?: string;
}

/** The `mcts-N` Tic-Tac-Toe opponent: a fresh UCT + MCTS-Solver tree per move. */
export function mctsOpponent(options: MctsOpponentOptions): OpponentV1<TicTacToeState, TicTacToeAction> {
  const engine = createTicTacToeMcts({
    simulations: options.simulations,
    ...(options.exploration === undefined ? {} : { exploration: options.exploration }),
  });
  return {
    specificationVersion: 'v1',
    id: options.id ?? `mcts-${options.simulations}`,
    act: (state, { rng }) => engine.search(state, rng).action,
  };
}

/** Parses `mcts-<N>` ids (N a positive integer without leading zeros); `undefined` for other ids. */
/** The largest N of an `mcts-<N>` id (simulations per move). */
export const MAX_MCTS_SIMULATIONS = 9_999_999;

export function parseMctsId(id: string): number | undefined {
  const m = /^mcts-([1-9]\d{0,6})$/.exec(id);
  return m ? Number(m[1]) : undefined;
}

export function mctsOpponentFromId(id: string): OpponentV1<TicTacToeState, TicTacToeAction> {
  const n = parseMctsId(id);
  if (n === undefined)
    throw new InvalidArgumentError(
      `'${id}' is not an mcts-<N> id (N simulations per move, 1..${MAX_MCTS_SIMULATIONS}).`,
    );
  return mctsOpponent({ simulations: n });
}
