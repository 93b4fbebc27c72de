/**
 * The ceiling of in-context adaptation: the exact Bayes-optimal agent for a meta-episode of K games
 * against one opponent drawn from a known population, which sees the outcome of each game before the
 * next (see `architecture/opponents.md`, "Adaptation ceiling").
 *
 * The agent's belief is a weight per population member. Before each game it commits to a pure strategy
 * of its seat (they are few in the games this is for: Kuhn Poker has 64 per seat); after
 * the game it observes `observation(terminal)` and updates the belief by each member's likelihood of that
 * observation. The `bayes` planner maximises the expected total over the games left (it may probe: give
 * up chips now for information that pays later); the `myopic` one best-responds to the current belief.
 */

import { type GameModelV1, InvalidArgumentError } from '@mage-rl/spec';
import type { PolicyFn } from '../strategy/strategy';

export interface AdaptiveOpponent<S> {
  readonly id: string;
  /** A distribution over `game.legalActions` of the opponent's (observed) state. */
  readonly policy: PolicyFn<S>;
}

export type AdaptivePlanner = 'bayes' | 'myopic';

export interface AdaptiveCeilingOptions<S, A> {
  readonly game: GameModelV1<S, A>;
  /** The state every game starts from (before chance deals). */
  readonly root: S;
  /** The agent's seat. */
  readonly player: 0 | 1;
  /** Games in the meta-episode (≥ 1). */
  readonly attempts: number;
  /** The population the opponent is drawn from: the prior's support. */
  readonly population: readonly AdaptiveOpponent<S>[];
  /** Prior weight per population member (default uniform; normalised). */
  readonly prior?: readonly number[];
  /** Opponents to measure the planner against (default: the population); may lie outside it. */
  readonly evaluate?: readonly AdaptiveOpponent<S>[];
  /**
   * What the agent learns at the end of a game (default: its information state at the terminal and its
   * return, e.g. Kuhn's own card, the betting and the chips won). Equal strings are the same observation.
   */
  readonly observation?: (terminal: S, player: number) => string;
  /** Default `bayes`. */
  readonly planner?: AdaptivePlanner;
}

export interface AdaptiveCeilingResult {
  /** Expected return per game under the prior, averaged over the attempts. */
  readonly value: number;
  /** Per evaluated opponent: the expected return of attempt 1..K. */
  readonly perOpponent: readonly { readonly id: string; readonly perAttempt: readonly number[] }[];
}

/** Pure strategies of one seat are enumerated; beyond this many the game is too large for this analysis. */
const MAX_PURE_STRATEGIES = 4096;

/** One (strategy, opponent) pair: the probability of each observation and the expected return. */
interface Outcomes {
  readonly prob: Float64Array;
  readonly expected: number;
}

function infoKey<S, A>(game: GameModelV1<S, A>, state: S, player: number): string {
  if (!game.informationStateKey) {
    throw new InvalidArgumentError('The adaptation ceiling needs a game with informationStateKey.');
  }
  return game.informationStateKey(state, player);
}

interface InfoSet<A> {
  readonly key: string;
  readonly actions: readonly A[];
}

function agentInfoSets<S, A>(game: GameModelV1<S, A>, root: S, player: number): InfoSet<A>[] {
  const found = new Map<string, InfoSet<A>>();
  const walk = (state: S): void => {
    if (game.isTerminal(state)) return;
    const actor = game.currentPlayer(state);
    if (actor === player) {
      const key = infoKey(game, state, player);
      if (!found.has(key)) found.set(key, { key, actions: game.legalActions(state) });
    }
    const next =
      actor >= 0 ? game.legalActions(state) : (game.chanceOutcomes?.(state) ?? []).map((o) => o.action);
    for (const action of next) walk(game.apply(state, action));
  };
  walk(root);
  return [...found.values()];
}

function pureStrategies<A>(infoSets: readonly InfoSet<A>[]): Map<string, A>[] {
  let count = 1;
  for (const set of infoSets) count *= set.actions.length;
  if (count > MAX_PURE_STRATEGIES) {
    throw new InvalidArgumentError(
      `The agent's seat has ${count} pure strategies; the adaptation ceiling enumerates at most ${MAX_PURE_STRATEGIES}.`,
    );
  }
  let all: Map<string, A>[] = [new Map()];
  for (const set of infoSets) {
    all = all.flatMap((partial) =>
      set.actions.map((action) => new Map([...partial, [set.key, action] as [string, A]])),
    );
  }
  return all;
}

function outcomesOf<S, A>(
  game: GameModelV1<S, A>,
  root: S,
  player: number,
  strategy: ReadonlyMap<string, A>,
  opponent: PolicyFn<S>,
  observation: (terminal: S, player: number) => string,
  keyIndex: Map<string, number>,
): Map<number, { p: number; chips: number }> {
  const out = new Map<number, { p: number; chips: number }>();
  const walk = (state: S, reach: number): void => {
    if (reach === 0) return;
    if (game.isTerminal(state)) {
      const key = observation(state, player);
      let index = keyIndex.get(key);
      if (index === undefined) {
        index = keyIndex.size;
        keyIndex.set(key, index);
      }
      const slot = out.get(index) ?? { p: 0, chips: 0 };
      slot.p += reach;
      slot.chips += reach * game.returns(state)[player]!;
      out.set(index, slot);
      return;
    }
    const actor = game.currentPlayer(state);
    if (actor === player) {
      const action = strategy.get(infoKey(game, state, player));
      if (action === undefined)
        throw new InvalidArgumentError('Unreachable: an agent information set was missed.');
      walk(game.apply(state, action), reach);
    } else if (actor >= 0) {
      const actions = game.legalActions(state);
      const probs = opponent(game.observe ? game.observe(state, actor) : state, actor);
      for (const [i, action] of actions.entries()) walk(game.apply(state, action), reach * (probs[i] ?? 0));
    } else {
      for (const o of game.chanceOutcomes?.(state) ?? [])
        walk(game.apply(state, o.action), reach * o.probability);
    }
  };
  walk(root, 1);
  return out;
}

/** The planner over one population: its tables, beliefs and plans (see `adaptiveCeiling`). */
function createPlanner<S, A>(options: Omit<AdaptiveCeilingOptions<S, A>, 'attempts'>) {
  const { game, root, player, population } = options;
  if (population.length === 0) throw new InvalidArgumentError('The population needs at least one opponent.');
  const prior = options.prior ?? population.map(() => 1);
  if (prior.length !== population.length || prior.some((w) => !(w >= 0)) || !prior.some((w) => w > 0)) {
    throw new InvalidArgumentError(
      'prior needs one non-negative weight per population member, not all zero.',
    );
  }
  const evaluated = options.evaluate ?? population;
  const observation =
    options.observation ?? ((s: S, p: number) => `${infoKey(game, s, p)}|${game.returns(s)[p]}`);
  const planner = options.planner ?? 'bayes';

  const strategies = pureStrategies(agentInfoSets(game, root, player));
  // The population first (rows 0..m−1 of `table`), then the evaluated opponents outside it.
  const opponents = [...population, ...evaluated.filter((o) => !population.includes(o))];
  const keyIndex = new Map<string, number>();
  const raw = strategies.map((strategy) =>
    opponents.map((o) => outcomesOf(game, root, player, strategy, o.policy, observation, keyIndex)),
  );
  // Dense per (strategy, opponent) tables over the observations seen anywhere.
  const numKeys = keyIndex.size;
  const table: Outcomes[][] = raw.map((row) =>
    row.map((sparse) => {
      const prob = new Float64Array(numKeys);
      let expected = 0;
      for (const [k, { p, chips }] of sparse) {
        prob[k] = p;
        expected += chips;
      }
      return { prob, expected };
    }),
  );
  const m = population.length;

  const normalise = (w: readonly number[]): number[] => {
    const total = w.reduce((a, b) => a + b, 0);
    return w.map((x) => x / total);
  };
  const beliefKey = (b: readonly number[], n: number): string =>
    `${n}|${b.map((x) => x.toFixed(12)).join(',')}`;
  /** The posterior after observation k under strategy s, or `null` when no member explains it. */
  const posterior = (b: readonly number[], s: number, k: number): number[] | null => {
    const w = b.map((x, i) => x * table[s]![i]!.prob[k]!);
    return w.some((x) => x > 0) ? normalise(w) : null;
  };

  const immediate = (b: readonly number[], s: number): number => {
    let value = 0;
    for (let i = 0; i < m; i++) value += b[i]! * table[s]![i]!.expected;
    return value;
  };
  /** What the games after this one earn when strategy s is played now, n games left. */
  const future = (b: readonly number[], s: number, n: number): number => {
    let value = 0;
    if (n > 1) {
      for (let k = 0; k < numKeys; k++) {
        let pk = 0;
        for (let i = 0; i < m; i++) pk += b[i]! * table[s]![i]!.prob[k]!;
        if (pk > 0) value += pk * plan(posterior(b, s, k)!, n - 1).value;
      }
    }
    return value;
  };
  const plans = new Map<string, { strategy: number; value: number }>();
  /**
   * The planner's strategy with n games left under belief b, and the expected total it earns. Ties keep
   * the strategy that earns more now, then the first enumerated.
   */
  const plan = (b: readonly number[], n: number): { strategy: number; value: number } => {
    const key = beliefKey(b, n);
    const cached = plans.get(key);
    if (cached) return cached;
    let best = { strategy: 0, score: -Infinity, now: -Infinity };
    for (let s = 0; s < strategies.length; s++) {
      const now = immediate(b, s);
      const score = planner === 'bayes' ? now + future(b, s, n) : now;
      if (score > best.score + 1e-12 || (score > best.score - 1e-12 && now > best.now + 1e-12)) {
        best = { strategy: s, score, now };
      }
    }
    const value = planner === 'bayes' ? best.score : best.now + future(b, best.strategy, n);
    const result = { strategy: best.strategy, value };
    plans.set(key, result);
    return result;
  };

  return {
    strategies,
    opponents,
    table,
    keyIndex,
    numKeys,
    posterior,
    plan,
    beliefKey,
    b0: normalise(prior),
  };
}

/**
 * Exact expected return per attempt of the Bayes-optimal (or myopic) adaptive agent against each
 * evaluated opponent. Small games only: the agent's pure strategies per seat are enumerated.
 */
export function adaptiveCeiling<S, A>(options: AdaptiveCeilingOptions<S, A>): AdaptiveCeilingResult {
  const { attempts } = options;
  if (!Number.isInteger(attempts) || attempts < 1) {
    throw new InvalidArgumentError(`attempts must be an integer ≥ 1, got ${attempts}.`);
  }
  const evaluated = options.evaluate ?? options.population;
  const { opponents, table, numKeys, posterior, plan, beliefKey, b0 } = createPlanner(options);

  /** Expected return of each of the n games left against evaluated opponent j (row index in `table`). */
  const play = (b: readonly number[], n: number, j: number, memo: Map<string, number[]>): number[] => {
    const key = beliefKey(b, n);
    const cached = memo.get(key);
    if (cached) return cached;
    const s = plan(b, n).strategy;
    const outcomes = table[s]![j]!;
    const result = [outcomes.expected, ...new Array<number>(n - 1).fill(0)];
    if (n > 1) {
      for (let k = 0; k < numKeys; k++) {
        const pk = outcomes.prob[k]!;
        if (pk === 0) continue;
        // An observation no member explains leaves the belief as it was.
        const rest = play(posterior(b, s, k) ?? b, n - 1, j, memo);
        for (let t = 0; t < rest.length; t++) result[t + 1]! += pk * rest[t]!;
      }
    }
    memo.set(key, result);
    return result;
  };

  const totalUnderPrior = plan(b0, attempts).value;
  const perOpponent = evaluated.map((o) => ({
    id: o.id,
    perAttempt: play(b0, attempts, opponents.indexOf(o), new Map()),
  }));
  return { value: totalUnderPrior / attempts, perOpponent };
}

/** The adaptive agent as a player: what it plays in the next game given what it observed so far. */
export interface AdaptiveAgent<A> {
  /**
   * The pure strategy (information-state key → action) for the next game, after `observations` (one per
   * game played, each made after the agent's own strategy for that game) with `gamesLeft` games to go,
   * this one included. An observation no member explains leaves the belief as it was.
   */
  next(observations: readonly string[], gamesLeft: number): ReadonlyMap<string, A>;
  /** The belief over the population after `observations`, one weight per member. */
  belief(observations: readonly string[], gamesLeft: number): readonly number[];
}

/**
 * The agent of `adaptiveCeiling` to play with (a teacher that reads its notes): its tables are built once,
 * its strategy for each game follows from the observations of the games before.
 */
export function createAdaptiveAgent<S, A>(
  options: Omit<AdaptiveCeilingOptions<S, A>, 'attempts' | 'evaluate'>,
): AdaptiveAgent<A> {
  const { strategies, keyIndex, posterior, plan, b0 } = createPlanner(options);
  const belief = (observations: readonly string[], gamesLeft: number): number[] => {
    let b = b0;
    observations.forEach((o, i) => {
      const s = plan(b, gamesLeft + observations.length - i).strategy;
      const k = keyIndex.get(o);
      b = (k === undefined ? null : posterior(b, s, k)) ?? b;
    });
    return b;
  };
  return {
    belief,
    next(observations, gamesLeft) {
      if (!Number.isInteger(gamesLeft) || gamesLeft < 1) {
        throw new InvalidArgumentError(`gamesLeft must be an integer ≥ 1, got ${gamesLeft}.`);
      }
      return strategies[plan(belief(observations, gamesLeft), gamesLeft).strategy]!;
    },
  };
}
