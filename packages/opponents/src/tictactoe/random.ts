import { type GameModelV1, type OpponentV1, RolloutError } from '@mage-rl/spec';

/** `random`: a uniformly random legal action (a random empty cell in Tic-Tac-Toe). */
export function randomOpponent<S, A>(game: GameModelV1<S, A>, id = 'random'): OpponentV1<S, A> {
  return {
    specificationVersion: 'v1',
    id,
    act(state, { rng }) {
      const actions = game.legalActions(state);
      if (actions.length === 0) {
        throw new RolloutError(
          'OPPONENT_FAILURE',
          `Opponent '${id}' has no legal move in ${game.stateKey(state)}.`,
        );
      }
      return rng.pick(actions);
    },
  };
}
