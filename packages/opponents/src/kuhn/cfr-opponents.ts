/** The CFR opponents of Kuhn Poker: `cfr` (argmax of the average strategy) and `cfr-sampled`. */

import { KUHN_INITIAL_STATE, type KuhnAction, type KuhnState, kuhnGame } from '@mage-rl/envs/kuhn-poker';
import { createCfrSolver } from '../cfr/cfr';
import { type PolicyOpponentV1, policyOpponent } from '../strategy/policy-opponent';
import { argmaxIndex, type TabularStrategy, tablePolicy } from '../strategy/strategy';

export const KUHN_CFR_DEFAULT_ITERATIONS = 1000;

const CACHE = new Map<number, TabularStrategy>();

/** Vanilla CFR's average Kuhn strategy after `iterations` (memoised: the computation is deterministic). */
export function kuhnCfrStrategy(iterations = KUHN_CFR_DEFAULT_ITERATIONS): TabularStrategy {
  const cached = CACHE.get(iterations);
  if (cached) return cached;
  const solver = createCfrSolver({ game: kuhnGame, root: KUHN_INITIAL_STATE, algorithm: 'cfr' });
  solver.run(iterations);
  const strategy = solver.averageStrategy();
  CACHE.set(iterations, strategy);
  return strategy;
}

export interface KuhnCfrOpponentOptions {
  /** Default 1000. */
  readonly iterations?: number;
  /** `argmax` (default, id `cfr`): the most likely action, ties to PASS. `sample` (id `cfr-sampled`). */
  readonly play?: 'argmax' | 'sample';
}

export function kuhnCfrOpponent(
  options: KuhnCfrOpponentOptions = {},
): PolicyOpponentV1<KuhnState, KuhnAction> {
  const play = options.play ?? 'argmax';
  const average = tablePolicy(kuhnGame, kuhnCfrStrategy(options.iterations));
  const id = play === 'argmax' ? 'cfr' : 'cfr-sampled';
  if (play === 'sample') return policyOpponent({ id, game: kuhnGame, policy: average, play });
  // The deterministic opponent's policy is the one-hot argmax, so best response analyses what it plays.
  return policyOpponent({
    id,
    game: kuhnGame,
    policy: (state, player) => {
      const probs = average(state, player);
      const best = argmaxIndex(probs);
      return probs.map((_, i) => (i === best ? 1 : 0));
    },
    play,
  });
}
