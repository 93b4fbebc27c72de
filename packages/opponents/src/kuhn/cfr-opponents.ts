/** The CFR opponents of Kuhn Poker: `cfr` (argmax of the average strategy) and `cfr-sampled`. */

import { KUHN_INITIAL_STATE, type KuhnAction, type KuhnState, kuhnGame } from '@mage-rl/envs/kuhn-poker';
import { type CfrAlgorithm, createCfrSolver } from '../cfr/cfr';
import { type PolicyOpponentV1, policyOpponent } from '../strategy/policy-opponent';
import { argmaxIndex, type TabularStrategy, tablePolicy } from '../strategy/strategy';

export const KUHN_CFR_DEFAULT_ITERATIONS = 1000;

const CACHE = new Map<string, TabularStrategy>();

/**
 * The average Kuhn strategy of `algorithm` after `iterations` (memoised: the computation is
 * deterministic).
 */
export function kuhnAverageStrategy(algorithm: CfrAlgorithm, iterations: number): TabularStrategy {
  const key = `${algorithm}/${iterations}`;
  const cached = CACHE.get(key);
  if (cached) return cached;
  const solver = createCfrSolver({ game: kuhnGame, root: KUHN_INITIAL_STATE, algorithm });
  solver.run(iterations);
  const strategy = solver.averageStrategy();
  CACHE.set(key, strategy);
  return strategy;
}

/** Vanilla CFR's average Kuhn strategy after `iterations` (memoised). */
export function kuhnCfrStrategy(iterations = KUHN_CFR_DEFAULT_ITERATIONS): TabularStrategy {
  return kuhnAverageStrategy('cfr', iterations);
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
