/**
 * The Kuhn Poker warm-start teacher: samples its action from an equilibrium strategy (the CFR+
 * average strategy, computed once per iteration count and memoised). An equilibrium never adapts to the
 * opponent, so the teacher teaches legal play, not exploitation.
 */

import { InvalidArgumentError, type PolicyV1, type Rng } from '@mage-rl/core';
import {
  type KuhnBettingAction,
  type KuhnCard,
  type KuhnPokerEnv,
  type KuhnState,
  kuhnGame,
} from '@mage-rl/envs/kuhn-poker';
import { kuhnAverageStrategy, type TabularStrategy, tablePolicy } from '@mage-rl/opponents';
import { infoString, type TeacherOptions, teacherPolicy } from './teacher-policy';

export const KUHN_TEACHER_ITERATIONS = 2000;

/** CFR+ average strategy of Kuhn Poker after `iterations` (deterministic, memoised). */
export function kuhnEquilibriumStrategy(iterations = KUHN_TEACHER_ITERATIONS): TabularStrategy {
  return kuhnAverageStrategy('cfr+', iterations);
}

const CARDS: readonly string[] = ['J', 'Q', 'K'];

/**
 * The teacher's action for the agent holding `card` after betting `history` in seat `player` (0 acts
 * first), sampled from `strategy` with `rng`.
 */
export function kuhnTeacherAction(
  strategy: TabularStrategy,
  card: string,
  history: string,
  player: 0 | 1,
  rng: Rng,
): KuhnBettingAction {
  if (!CARDS.includes(card)) {
    throw new InvalidArgumentError(`Kuhn teacher: unknown card '${card}'.`, { context: { card } });
  }
  const c = card as KuhnCard;
  const state: KuhnState = { cards: player === 0 ? [c, null] : [null, c], history };
  const actions = kuhnGame.legalActions(state) as readonly KuhnBettingAction[];
  if (actions.length === 0) {
    throw new InvalidArgumentError(`Kuhn teacher: no legal action after history '${history}'.`);
  }
  const probs = tablePolicy(kuhnGame, strategy)(state, player);
  return actions[rng.weighted(probs)] as KuhnBettingAction;
}

export interface KuhnTeacherOptions extends TeacherOptions {
  /** CFR+ iterations of the equilibrium. Default 2000. */
  readonly iterations?: number;
}

export function kuhnTeacher(env: KuhnPokerEnv, options: KuhnTeacherOptions = {}): PolicyV1 {
  const style = options.style ?? 'compact';
  const id = 'teacher-kuhn-poker';
  const strategy = kuhnEquilibriumStrategy(options.iterations);
  return teacherPolicy({
    id,
    style,
    play(observation, rng) {
      const card = infoString(observation, 'card', id);
      const history = infoString(observation, 'history', id);
      const seat = infoString(observation, 'seat', id);
      const action = kuhnTeacherAction(strategy, card, history, seat === 'second' ? 1 : 0, rng);
      return env.formatAction(action, style);
    },
  });
}
