/**
 * Exact reference values for a report on a small two-player game (Kuhn Poker): against every opponent
 * whose policy is known, the value of the exact best response and of the game's equilibrium strategy
 * (CFR+), per game in the game's return unit, with the agent's seat mixed half and half as in training
 * and evaluation. A policy's returns, divided by the env's reward per return unit, sit beside them.
 */

import type { EnvDefinitionV1, MetaEpisodeMetricsV1, PopulationEntry } from '@mage-rl/core';
import {
  adaptiveCeiling,
  bestResponse,
  createCfrSolver,
  deterministicBestResponse,
  expectedReturns,
  type PolicyFn,
  tablePolicy,
} from '@mage-rl/opponents';
import type { AdaptiveHeadroom } from './experiment-results';

/** CFR+ iterations of the equilibrium reference (exploitability below 1e-3 chips in Kuhn Poker). */
const EQUILIBRIUM_ITERATIONS = 2000;

export interface OpponentReferenceV1 {
  /** What the exact best response to the opponent earns per game. */
  readonly bestResponse: number;
  /** What the equilibrium strategy earns per game against the opponent. */
  readonly equilibrium: number;
  /**
   * The adaptation ceiling: what the exact Bayes-optimal agent, knowing the training population, earns per
   * game at attempt 1..K against this opponent (only when every attempt is a fresh game).
   */
  readonly ceiling?: readonly number[];
}

/** The adaptation ceiling's setting: K attempts against an opponent drawn from the training population. */
export interface CeilingSettingV1 {
  readonly attempts: number;
  readonly population: readonly PopulationEntry[];
}

export interface ReferenceValuesV1 {
  /** The game's return unit (`chips per hand`). */
  readonly unit: string;
  /** Env reward units per return unit: mean returns are divided by it. */
  readonly rewardPerReturn: number;
  readonly byOpponent: Readonly<Record<string, OpponentReferenceV1>>;
  /** The ceiling's population with its prior weights, and the ceiling per attempt under that prior. */
  readonly ceiling?: {
    readonly population: readonly PopulationEntry[];
    readonly perAttempt: readonly number[];
  };
}

const meanOverSeats = (value: (seat: 0 | 1) => number): number => (value(0) + value(1)) / 2;

/**
 * The reference values of env `definition` under env `options` for `opponentIds`; `undefined` when the env
 * has no solvable match game or no reward scale, and opponents without a known policy are left out. With
 * `ceiling`, and when every attempt is a fresh game under `options`, also the adaptation ceiling.
 */
export function referenceValues(
  definition: EnvDefinitionV1,
  opponentIds: readonly string[],
  options: Readonly<Record<string, unknown>>,
  ceiling?: CeilingSettingV1,
): ReferenceValuesV1 | undefined {
  const opponents = definition.opponents;
  const match = opponents?.match;
  if (!opponents || !match?.solveNames?.length || !match.rewardPerReturn) return undefined;
  const { model: game, root } = match;
  const solver = createCfrSolver({ game, root, algorithm: 'cfr+' });
  solver.run(EQUILIBRIUM_ITERATIONS);
  const equilibrium = tablePolicy(game, solver.averageStrategy());
  // Each opponent is created once: the ceiling and the reference values read the same policy.
  const policies = new Map<string, PolicyFn<unknown> | undefined>();
  const known = (id: string): PolicyFn<unknown> | undefined => {
    if (!policies.has(id)) {
      const policy: unknown = Reflect.get(opponents.create(id), 'policy');
      policies.set(id, typeof policy === 'function' ? (policy as PolicyFn<unknown>) : undefined);
    }
    return policies.get(id);
  };
  const adapted =
    ceiling && match.freshGamePerAttempt?.(options)
      ? ceilingOf(definition, opponentIds, ceiling, known)
      : undefined;
  const byOpponent: Record<string, OpponentReferenceV1> = {};
  for (const id of opponentIds) {
    const theirs = known(id);
    if (!theirs) continue;
    const against =
      (seat: 0 | 1): PolicyFn<unknown> =>
      (state, player) =>
        player === seat ? equilibrium(state, player) : theirs(state, player);
    byOpponent[id] = {
      bestResponse: meanOverSeats(
        (seat) => bestResponse({ game, root, strategy: theirs, player: seat }).value,
      ),
      equilibrium: meanOverSeats((seat) => expectedReturns({ game, root, strategy: against(seat) })[seat]),
      ...(adapted?.byOpponent[id] ? { ceiling: adapted.byOpponent[id] } : {}),
    };
  }
  if (Object.keys(byOpponent).length === 0) return undefined;
  return {
    unit: definition.labels?.returnUnit ?? 'return units',
    rewardPerReturn: match.rewardPerReturn(options),
    byOpponent,
    ...(adapted ? { ceiling: { population: adapted.population, perAttempt: adapted.perAttempt } } : {}),
  };
}

/**
 * The exact Bayes-optimal adapter's value per attempt against each known opponent and under the prior,
 * seats mixed; `undefined` when a population member's policy is unknown.
 */
function ceilingOf(
  definition: EnvDefinitionV1,
  opponentIds: readonly string[],
  setting: CeilingSettingV1,
  known: (id: string) => PolicyFn<unknown> | undefined,
) {
  const match = definition.opponents?.match;
  const population = setting.population.map((e) => ({ id: e.id, policy: known(e.id) }));
  if (!match || population.some((p) => !p.policy)) return undefined;
  const ids = [...new Set([...setting.population.map((e) => e.id), ...opponentIds])];
  const evaluate = ids.flatMap((id) => {
    const policy = known(id);
    return policy ? [{ id, policy }] : [];
  });
  const run = (player: 0 | 1) =>
    adaptiveCeiling({
      game: match.model,
      root: match.root,
      player,
      attempts: setting.attempts,
      population: population as { id: string; policy: PolicyFn<unknown> }[],
      prior: setting.population.map((e) => e.weight),
      evaluate,
    });
  const seats = [run(0), run(1)] as const;
  const perAttempt = (values: (r: (typeof seats)[number]) => readonly number[]) =>
    Array.from({ length: setting.attempts }, (_, k) => (values(seats[0])[k]! + values(seats[1])[k]!) / 2);
  const total = setting.population.reduce((a, e) => a + e.weight, 0);
  const byOpponent = Object.fromEntries(
    evaluate.map((o, e) => [o.id, perAttempt((r) => r.perOpponent[e]!.perAttempt)]),
  );
  // Under the prior: the members' values weighted by the prior (every member is evaluated).
  const underPrior = Array.from({ length: setting.attempts }, (_, k) =>
    setting.population.reduce((a, m) => a + (m.weight / total) * (byOpponent[m.id]?.[k] ?? 0), 0),
  );
  return { population: setting.population, byOpponent, perAttempt: underPrior };
}

/**
 * The opponents among `opponentIds` that a perfect reader beats at every attempt after the first: each
 * plays one move for sure wherever it moves (a known policy, probability 1 on one move) and loses to its
 * best response from either seat of the env's match game, so one game shows its moves and the next can be
 * won. Empty for an env without a match game or opponents without a known policy.
 */
export function identifiableOpponents(definition: EnvDefinitionV1, opponentIds: readonly string[]): string[] {
  const opponents = definition.opponents;
  const match = opponents?.match;
  if (!opponents || !match) return [];
  return opponentIds.filter((id) => {
    const policy: unknown = Reflect.get(opponents.create(id), 'policy');
    if (typeof policy !== 'function') return false;
    return ([0, 1] as const).every((player) => {
      const value = deterministicBestResponse({
        game: match.model,
        root: match.root,
        player,
        policy: policy as PolicyFn<unknown>,
      });
      return value !== undefined && value > 0;
    });
  });
}

/**
 * The most pass@K a memory could add to a policy by identifying the opponent, from its evaluation with no
 * memory: the share of all meta-episodes it lost by attempt K against `identifiable` opponents (a perfect
 * reader wins them from attempt 2 on). `undefined` when no identifiable opponent was played.
 */
export function identificationCeiling(
  withoutMemory: MetaEpisodeMetricsV1,
  identifiable: readonly string[],
): number | undefined {
  const played = identifiable.flatMap((id) => withoutMemory.byOpponent[id] ?? []);
  if (played.length === 0) return undefined;
  const lost = played.reduce(
    (sum, s) => sum + s.metaEpisodes * (1 - s.perAttempt[s.perAttempt.length - 1]!.passAtK.rate),
    0,
  );
  return lost / Math.max(1, withoutMemory.overall.metaEpisodes);
}

/**
 * The share of the identification `ceiling` a memory benefit of `gained` took, as `NN%` (`−NN%` below
 * zero); `undefined` when the ceiling is not positive.
 */
/**
 * The adaptive headroom under the training population: a policy's prior-weighted return per attempt in the
 * game's unit against the adaptation ceiling's (`undefined` without a ceiling).
 */
export function populationHeadroom(refs: ReferenceValuesV1): AdaptiveHeadroom | undefined {
  const ceiling = refs.ceiling;
  if (!ceiling) return undefined;
  const total = ceiling.population.reduce((a, e) => a + e.weight, 0);
  return {
    measure: `${refs.unit} under the population`,
    ceiling: ceiling.perAttempt,
    level: (m, k) => {
      let value = 0;
      for (const e of ceiling.population) {
        const attempts = m.byOpponent[e.id]?.perAttempt;
        const a = attempts?.[Math.min(k, attempts.length - 1)];
        if (!a) return undefined;
        value += (e.weight / total) * (a.meanReturn / refs.rewardPerReturn);
      }
      return value;
    },
  };
}

export function ceilingShare(gained: number, ceiling: number): string | undefined {
  if (!(ceiling > 0)) return undefined;
  const share = Math.round((100 * gained) / ceiling);
  return `${share < 0 ? '−' : ''}${Math.abs(share)}%`;
}
