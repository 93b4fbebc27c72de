import { type GameModelV1, type OpponentV1, RolloutError } from '@mage-rl/spec';
import { argmaxIndex, type PolicyFn } from './strategy';

/** An opponent whose behaviour is a known policy: best response and exploitability can read it exactly. */
export interface PolicyOpponentV1<S, A> extends OpponentV1<S, A> {
  /** Probabilities of `game.legalActions(state)` (same order) for `player` in the observed `state`. */
  readonly policy: PolicyFn<S>;
}

export interface PolicyOpponentOptions<S, A> {
  readonly id: string;
  readonly game: GameModelV1<S, A>;
  readonly policy: PolicyFn<S>;
  /** `sample` (default) draws from the policy with the injected rng; `argmax` plays the most likely action (ties to the first). */
  readonly play?: 'sample' | 'argmax';
}

/** Wraps a policy function as an opponent. */
export function policyOpponent<S, A>(options: PolicyOpponentOptions<S, A>): PolicyOpponentV1<S, A> {
  const { id, game, policy } = options;
  const play = options.play ?? 'sample';
  return {
    specificationVersion: 'v1',
    id,
    policy,
    act(state, { rng, player }) {
      const actions = game.legalActions(state);
      if (actions.length === 0 || game.currentPlayer(state) !== player) {
        throw new RolloutError(
          'OPPONENT_FAILURE',
          `Opponent '${id}' was asked to act for player ${player} in ${game.stateKey(state)}, which is not its turn.`,
        );
      }
      const probs = policy(state, player);
      const index = play === 'argmax' ? argmaxIndex(probs) : rng.weighted(probs);
      return actions[index] as A;
    },
  };
}
