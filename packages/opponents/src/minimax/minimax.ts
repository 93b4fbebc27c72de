/**
 * Perfect play by memoised minimax over any deterministic two-player zero-sum `GameModelV1` with perfect
 * information (Tic-Tac-Toe: 5,478 positions on 3×3). Ties between equally good moves are broken at random.
 */

import {
  CHANCE_PLAYER,
  type GameModelV1,
  InvalidArgumentError,
  type OpponentV1,
  RolloutError,
} from '@mage-rl/spec';

const MEMO = new WeakMap<object, Map<string, number>>();

/** Player 0's game-theoretic value of `state` (memoised per game model by `stateKey`). */
export function minimaxValue<S, A>(game: GameModelV1<S, A>, state: S): number {
  let memo = MEMO.get(game);
  if (!memo) {
    memo = new Map();
    MEMO.set(game, memo);
  }
  return value(game, state, memo);
}

function value<S, A>(game: GameModelV1<S, A>, state: S, memo: Map<string, number>): number {
  const key = game.stateKey(state);
  const known = memo.get(key);
  if (known !== undefined) return known;
  let v: number;
  if (game.isTerminal(state)) {
    v = game.returns(state)[0] ?? 0;
  } else {
    const p = game.currentPlayer(state);
    if (p === CHANCE_PLAYER || (p !== 0 && p !== 1)) {
      throw new InvalidArgumentError('Minimax needs a deterministic two-player game without chance nodes.');
    }
    v = p === 0 ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
    for (const a of game.legalActions(state)) {
      const c = value(game, game.apply(state, a), memo);
      v = p === 0 ? Math.max(v, c) : Math.min(v, c);
    }
  }
  memo.set(key, v);
  return v;
}

/** The optimal actions of the player to move (all of them, in legal-action order). */
export function minimaxActions<S, A>(game: GameModelV1<S, A>, state: S): A[] {
  const p = game.currentPlayer(state);
  const sign = p === 0 ? 1 : -1;
  let best = Number.NEGATIVE_INFINITY;
  let out: A[] = [];
  for (const a of game.legalActions(state)) {
    const v = sign * minimaxValue(game, game.apply(state, a));
    if (v > best + 1e-9) {
      best = v;
      out = [a];
    } else if (Math.abs(v - best) <= 1e-9) {
      out.push(a);
    }
  }
  return out;
}

/** The `minimax` opponent: a uniformly random optimal move. */
export function minimaxOpponent<S, A>(game: GameModelV1<S, A>, id = 'minimax'): OpponentV1<S, A> {
  return {
    specificationVersion: 'v1',
    id,
    act(state, { rng }) {
      const best = minimaxActions(game, state);
      if (best.length === 0) {
        throw new RolloutError(
          'OPPONENT_FAILURE',
          `Opponent '${id}' has no legal move in ${game.stateKey(state)}.`,
        );
      }
      return rng.pick(best);
    },
  };
}
