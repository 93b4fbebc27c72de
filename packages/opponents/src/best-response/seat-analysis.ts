/**
 * Exact analyses from the agent's seat: the best response and the adaptation ceiling, for seat 0, seat 1
 * or both (`mixed`: half the games in each seat, so values are the mean over the two seats).
 */

import type { GameModelV1 } from '@mage-rl/spec';
import type { TabularStrategy } from '../strategy/strategy';
import { type AdaptiveOpponent, type AdaptivePlanner, adaptiveCeiling } from './adaptive';
import { bestResponse, type StrategyQuery } from './best-response';

export const ANALYSIS_SEATS = ['0', '1', 'mixed'] as const;
export type AnalysisSeat = (typeof ANALYSIS_SEATS)[number];
export const ADAPTIVE_PLANNERS: readonly AdaptivePlanner[] = ['bayes', 'myopic'];

const playersOf = (seat: AnalysisSeat): (0 | 1)[] => (seat === 'mixed' ? [0, 1] : [Number(seat) as 0 | 1]);
const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

export interface SeatBestResponse {
  readonly seat: AnalysisSeat;
  /** Best-response value per game from `seat` (the mean of both seats for `mixed`). */
  readonly value: number;
  readonly valueBySeat: { readonly '0': number; readonly '1': number };
  /** The best-response strategy of the seat's information sets (both seats' for `mixed`). */
  readonly strategy: TabularStrategy;
}

/** The exact best response to the other player's part of `strategy`, from `seat`. */
export function seatBestResponse<S, A>(
  query: StrategyQuery<S, A> & { readonly seat: AnalysisSeat },
): SeatBestResponse {
  const br0 = bestResponse({ ...query, player: 0 });
  const br1 = bestResponse({ ...query, player: 1 });
  const { seat } = query;
  return {
    seat,
    value: seat === '0' ? br0.value : seat === '1' ? br1.value : (br0.value + br1.value) / 2,
    valueBySeat: { '0': br0.value, '1': br1.value },
    strategy:
      seat === '0' ? br0.strategy : seat === '1' ? br1.strategy : { ...br0.strategy, ...br1.strategy },
  };
}

export interface AdaptationCeilingTableOptions<S, A> {
  readonly game: GameModelV1<S, A>;
  readonly root: S;
  readonly seat: AnalysisSeat;
  readonly attempts: number;
  /** The population the opponent is drawn from, with prior weights. */
  readonly population: readonly (AdaptiveOpponent<S> & { readonly weight: number })[];
  /** The opponents to measure against (may lie outside the population). */
  readonly evaluate: readonly AdaptiveOpponent<S>[];
}

export interface AdaptationCeilingTable {
  /** Per planner: the expected return per game under the prior, mean over the attempts (and seats). */
  readonly value: Readonly<Record<AdaptivePlanner, number>>;
  readonly opponents: readonly {
    readonly id: string;
    /** The exact best response's value: what an agent told the opponent's identity earns per game. */
    readonly bestResponse: number;
    /** Expected return of attempt 1..K for each planner. */
    readonly perAttempt: Readonly<Record<AdaptivePlanner, readonly number[]>>;
  }[];
}

/**
 * What perfect in-context adaptation earns from `seat`: `adaptiveCeiling` for each planner (mean over the
 * seats), per evaluated opponent beside the best response to it.
 */
export function adaptationCeilingTable<S, A>(
  options: AdaptationCeilingTableOptions<S, A>,
): AdaptationCeilingTable {
  const { game, root, attempts, population, evaluate } = options;
  const seats = playersOf(options.seat);
  const runs = ADAPTIVE_PLANNERS.map((planner) =>
    seats.map((player) =>
      adaptiveCeiling({
        game,
        root,
        player,
        attempts,
        population,
        prior: population.map((e) => e.weight),
        evaluate,
        planner,
      }),
    ),
  );
  const perPlanner = <T>(value: (p: number) => T) =>
    Object.fromEntries(ADAPTIVE_PLANNERS.map((planner, p) => [planner, value(p)])) as Record<
      AdaptivePlanner,
      T
    >;
  return {
    value: perPlanner((p) => mean(runs[p]!.map((r) => r.value))),
    opponents: evaluate.map((o, e) => ({
      id: o.id,
      bestResponse: mean(
        seats.map((player) => bestResponse({ game, root, strategy: o.policy, player }).value),
      ),
      perAttempt: perPlanner((p) =>
        Array.from({ length: attempts }, (_, k) =>
          mean(runs[p]!.map((r) => r.perOpponent[e]!.perAttempt[k]!)),
        ),
      ),
    })),
  };
}
