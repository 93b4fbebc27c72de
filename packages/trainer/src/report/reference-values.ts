/**
 * Exact reference values for a report on a small two-player game (Kuhn Poker): against every opponent
 * whose policy is known, the value of the exact best response and of the game's equilibrium strategy
 * (CFR+), per game in the game's return unit, with the agent's seat mixed half and half as in training
 * and evaluation. A policy's returns, divided by the env's reward per return unit, sit beside them.
 */

import type { EnvDefinitionV1 } from '@mage-rl/core';
import {
  bestResponse,
  createCfrSolver,
  expectedReturns,
  type PolicyFn,
  tablePolicy,
} from '@mage-rl/opponents';

/** CFR+ iterations of the equilibrium reference (exploitability below 1e-3 chips in Kuhn Poker). */
const EQUILIBRIUM_ITERATIONS = 2000;

export interface OpponentReferenceV1 {
  /** What the exact best response to the opponent earns per game. */
  readonly bestResponse: number;
  /** What the equilibrium strategy earns per game against the opponent. */
  readonly equilibrium: number;
}

export interface ReferenceValuesV1 {
  /** The game's return unit (`chips per hand`). */
  readonly unit: string;
  /** Env reward units per return unit: mean returns are divided by it. */
  readonly rewardPerReturn: number;
  readonly byOpponent: Readonly<Record<string, OpponentReferenceV1>>;
}

const meanOverSeats = (value: (seat: 0 | 1) => number): number => (value(0) + value(1)) / 2;

/**
 * The reference values of env `definition` under env `options` for `opponentIds`; `undefined` when the env
 * has no solvable match game or no reward scale, and opponents without a known policy are left out.
 */
export function referenceValues(
  definition: EnvDefinitionV1,
  opponentIds: readonly string[],
  options: Readonly<Record<string, unknown>>,
): ReferenceValuesV1 | undefined {
  const opponents = definition.opponents;
  const match = opponents?.match;
  if (!opponents || !match?.solveNames?.length || !match.rewardPerReturn) return undefined;
  const { model: game, root } = match;
  const solver = createCfrSolver({ game, root, algorithm: 'cfr+' });
  solver.run(EQUILIBRIUM_ITERATIONS);
  const equilibrium = tablePolicy(game, solver.averageStrategy());
  const byOpponent: Record<string, OpponentReferenceV1> = {};
  for (const id of opponentIds) {
    const opponent = opponents.create(id);
    const policy: unknown = Reflect.get(opponent, 'policy');
    if (typeof policy !== 'function') continue;
    const theirs = policy as PolicyFn<unknown>;
    const against =
      (seat: 0 | 1): PolicyFn<unknown> =>
      (state, player) =>
        player === seat ? equilibrium(state, player) : theirs(state, player);
    byOpponent[id] = {
      bestResponse: meanOverSeats(
        (seat) => bestResponse({ game, root, strategy: theirs, player: seat }).value,
      ),
      equilibrium: meanOverSeats((seat) => expectedReturns({ game, root, strategy: against(seat) })[seat]),
    };
  }
  if (Object.keys(byOpponent).length === 0) return undefined;
  return {
    unit: definition.labels?.returnUnit ?? 'return units',
    rewardPerReturn: match.rewardPerReturn(options),
    byOpponent,
  };
}
