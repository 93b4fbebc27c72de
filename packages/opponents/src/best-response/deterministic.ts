/**
 * The best response to an opponent that plays one action for sure wherever it moves: a search over the
 * responder's own moves only (the opponent's are read from its policy), so it is cheap where a full game
 * tree is not (Tic-Tac-Toe's 3×3 tree has half a million nodes; a fixed opponent leaves at most 945 lines).
 * What a perfect reader could do once its notes identify such an opponent.
 */

import { CHANCE_PLAYER, type GameModelV1 } from '@mage-rl/spec';
import type { PolicyFn } from '../strategy/strategy';

export interface DeterministicResponseQuery<S, A> {
  readonly game: GameModelV1<S, A>;
  readonly root: S;
  /** The responder's seat. */
  readonly player: number;
  /** The opponent's policy: probabilities of `game.legalActions(state)`, in the state it observes. */
  readonly policy: PolicyFn<S>;
}

/** Marks a line where the opponent is not deterministic (or chance moves): no pure answer there. */
const MIXED = Symbol('mixed');

/**
 * The return `player` can force against `policy`, or `undefined` when the opponent does not play one action
 * with probability 1 at some state the search reaches, or the game has a chance node there.
 */
export function deterministicBestResponse<S, A>(query: DeterministicResponseQuery<S, A>): number | undefined {
  const { game, player, policy } = query;
  const memo = new Map<string, number | typeof MIXED>();
  const value = (state: S): number | typeof MIXED => {
    if (game.isTerminal(state)) return game.returns(state)[player]!;
    const key = game.stateKey(state);
    const known = memo.get(key);
    if (known !== undefined) return known;
    const mover = game.currentPlayer(state);
    const actions = game.legalActions(state);
    let result: number | typeof MIXED;
    if (mover === CHANCE_PLAYER) {
      result = MIXED;
    } else if (mover === player) {
      result = -Infinity;
      for (const action of actions) {
        const v = value(game.apply(state, action));
        if (v === MIXED) {
          result = MIXED;
          break;
        }
        result = Math.max(result, v);
      }
    } else {
      const probs = policy(game.observe ? game.observe(state, mover) : state, mover);
      const sure = probs.indexOf(1);
      const action = actions[sure];
      result =
        action === undefined || probs.some((p, i) => i !== sure && p !== 0)
          ? MIXED
          : value(game.apply(state, action));
    }
    memo.set(key, result);
    return result;
  };
  const v = value(query.root);
  return v === MIXED ? undefined : v;
}
