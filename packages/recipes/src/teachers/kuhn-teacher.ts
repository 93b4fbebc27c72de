/**
 * The Kuhn Poker warm-start teacher. Note-blind it samples its action from an equilibrium strategy (the
 * CFR+ average strategy, computed once per iteration count and memoised), which never adapts to the
 * opponent. Reading its notes (a share of meta-episodes, `adaptive`), it is the adaptive agent of the
 * adaptation ceiling: it best-responds to its belief over the training population, updated from the
 * betting and chips of every hand its notes record.
 */

import {
  type FinishedAttemptFactsV1,
  InvalidArgumentError,
  type PolicyV1,
  type PopulationEntry,
  type Rng,
} from '@mage-rl/core';
import {
  isKuhnTerminalHistory,
  KUHN_INITIAL_STATE,
  type KuhnAction,
  type KuhnBettingAction,
  type KuhnCard,
  type KuhnPokerEnv,
  type KuhnState,
  kuhnGame,
  kuhnPayoff,
  parseKuhnEvent,
} from '@mage-rl/envs/kuhn-poker';
import {
  type AdaptiveAgent,
  createAdaptiveAgent,
  KUHN_ARCHETYPES,
  type KuhnArchetype,
  kuhnArchetypePolicy,
  kuhnAverageStrategy,
  POPULATION_PRESETS,
  type TabularStrategy,
  tablePolicy,
} from '@mage-rl/opponents';
import { envTeacher, infoString, type TeacherOptions } from './teacher-policy';

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
  /** The population an adaptive teacher believes it faces (archetype ids). Default: the `balanced` preset. */
  readonly population?: readonly PopulationEntry[];
}

/** What a note tells of a hand: its betting and the agent's chips (`pbb|-2`); null for an unfinished one. */
export function kuhnNoteObservation(attempt: FinishedAttemptFactsV1): string | null {
  const facts = attempt.events.map(parseKuhnEvent);
  const history = facts.map((f) => f.history).join('');
  const chips = facts.at(-1)?.chips ?? null;
  return isKuhnTerminalHistory(history) && chips !== null ? `${history}|${chips}` : null;
}

/** The same observation from a terminal state of the game model. */
const handObservation = (terminal: KuhnState, player: number): string =>
  `${terminal.history}|${player === 0 ? kuhnPayoff(terminal) : -kuhnPayoff(terminal)}`;

function archetype(id: string): KuhnArchetype {
  if (!(KUHN_ARCHETYPES as readonly string[]).includes(id)) {
    throw new InvalidArgumentError(
      `Kuhn teacher: population member '${id}' is not an archetype (${KUHN_ARCHETYPES.join(', ')}).`,
    );
  }
  return id as KuhnArchetype;
}

/** One adaptive agent per seat over `population` (tables built on first use). */
function adaptiveAgents(
  population: readonly PopulationEntry[],
): (player: 0 | 1) => AdaptiveAgent<KuhnAction> {
  const agents = new Map<0 | 1, AdaptiveAgent<KuhnAction>>();
  return (player) => {
    let agent = agents.get(player);
    if (!agent) {
      agent = createAdaptiveAgent({
        game: kuhnGame,
        root: KUHN_INITIAL_STATE,
        player,
        population: population.map((e) => ({ id: e.id, policy: kuhnArchetypePolicy(archetype(e.id)) })),
        prior: population.map((e) => e.weight),
        observation: handObservation,
        planner: 'myopic',
      });
      agents.set(player, agent);
    }
    return agent;
  };
}

export function kuhnTeacher(env: KuhnPokerEnv, options: KuhnTeacherOptions = {}): PolicyV1 {
  const id = 'teacher-kuhn-poker';
  const strategy = kuhnEquilibriumStrategy(options.iterations);
  const agentFor = adaptiveAgents(options.population ?? POPULATION_PRESETS['kuhn-poker'].balanced ?? []);
  return envTeacher(env, id, options, (observation, rng, notes) => {
    const card = infoString(observation, 'card', id);
    const history = infoString(observation, 'history', id);
    const player = infoString(observation, 'seat', id) === 'second' ? 1 : 0;
    if (notes.adaptive) {
      const seen = notes.earlier.flatMap((a) => kuhnNoteObservation(a) ?? []);
      const c = card as KuhnCard;
      const state: KuhnState = { cards: player === 0 ? [c, null] : [null, c], history };
      const action = agentFor(player)
        .next(seen, 1)
        .get(kuhnGame.informationStateKey?.(state, player) ?? '');
      if (action === 'PASS' || action === 'BET') return action;
    }
    return kuhnTeacherAction(strategy, card, history, player, rng);
  });
}
