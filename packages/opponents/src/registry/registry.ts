/**
 * Build any opponent by id: an explicit table per env (no registration by import side effects). Ids:
 * Tic-Tac-Toe `mcts-<N>`, `minimax`, `pattern-<name>` (six), `random`; Kuhn Poker `conservative`,
 * `aggressive`, `intermediate`, `cfr`, `cfr-sampled`, `random`; Rock-Paper-Scissors the rule bots
 * (`constant-rock`, `cycle-paper`, `beat-last-scissors`, …; see rps/bots.ts) and `random`.
 */

import { type KuhnAction, type KuhnState, kuhnGame } from '@mage-rl/envs/kuhn-poker';
import type { RpsState, RpsThrow } from '@mage-rl/envs/rps';
import { type TicTacToeAction, type TicTacToeState, ticTacToeGame } from '@mage-rl/envs/tictactoe';
import { type OpponentV1, UnknownIdError } from '@mage-rl/spec';
import { kuhnArchetypeOpponent } from '../kuhn/archetypes';
import { kuhnCfrOpponent } from '../kuhn/cfr-opponents';
import { MAX_MCTS_SIMULATIONS, mctsOpponent, parseMctsId } from '../mcts/mcts-opponent';
import { minimaxOpponent } from '../minimax/minimax';
import { RPS_BOTS, rpsBotOpponent, rpsRandomOpponent } from '../rps/bots';
import { policyOpponent } from '../strategy/policy-opponent';
import { PATTERN_NAMES, patternOpponent } from '../tictactoe/patterns';
import { randomOpponent } from '../tictactoe/random';

export interface OpponentRegistry<S, A> {
  readonly envId: string;
  /** Fixed ids plus examples of parametric ones (`mcts-100`, `mcts-1000`). */
  readonly ids: readonly string[];
  /** Parametric id patterns, for messages (`mcts-<N>`). */
  readonly patterns: readonly string[];
  has(id: string): boolean;
  /** A fresh opponent; throws `UnknownIdError` listing the known ids. */
  create(id: string): OpponentV1<S, A>;
}

type Factories<S, A> = Readonly<Record<string, () => OpponentV1<S, A>>>;

function makeRegistry<S, A>(
  envId: string,
  fixed: Factories<S, A>,
  parametric: {
    readonly pattern: string;
    readonly examples: readonly string[];
    parse(id: string): (() => OpponentV1<S, A>) | undefined;
  }[],
): OpponentRegistry<S, A> {
  const ids = [...parametric.flatMap((p) => p.examples), ...Object.keys(fixed)];
  const find = (id: string) => {
    if (Object.hasOwn(fixed, id)) return fixed[id];
    for (const p of parametric) {
      const make = p.parse(id);
      if (make) return make;
    }
    return undefined;
  };
  return {
    envId,
    ids,
    patterns: parametric.map((p) => p.pattern),
    has: (id) => find(id) !== undefined,
    create(id) {
      const make = find(id);
      if (!make)
        throw new UnknownIdError('opponent', id, [
          ...parametric.map((p) => p.pattern),
          ...Object.keys(fixed),
        ]);
      return make();
    },
  };
}

export function ticTacToeOpponentRegistry(): OpponentRegistry<TicTacToeState, TicTacToeAction> {
  // minimax and random read the board size from the state: one game model per size.
  const fixed: Record<string, () => OpponentV1<TicTacToeState, TicTacToeAction>> = {
    minimax: sizedMinimax,
    random: sizedRandom,
  };
  for (const name of PATTERN_NAMES) fixed[`pattern-${name}`] = () => patternOpponent(name);
  return makeRegistry('tictactoe', fixed, [
    {
      pattern: `mcts-<N> (N = 1..${MAX_MCTS_SIMULATIONS} simulations per move)`,
      examples: ['mcts-100', 'mcts-1000'],
      parse: (id) => {
        const n = parseMctsId(id);
        return n === undefined ? undefined : () => mctsOpponent({ simulations: n });
      },
    },
  ]);
}

function sizedMinimax(): OpponentV1<TicTacToeState, TicTacToeAction> {
  return {
    specificationVersion: 'v1',
    id: 'minimax',
    act: (state, context) => minimaxOpponent(ticTacToeGame(state.size)).act(state, context),
  };
}

function sizedRandom(): OpponentV1<TicTacToeState, TicTacToeAction> {
  return {
    specificationVersion: 'v1',
    id: 'random',
    act: (state, context) => randomOpponent(ticTacToeGame(state.size)).act(state, context),
  };
}

export function kuhnOpponentRegistry(): OpponentRegistry<KuhnState, KuhnAction> {
  return makeRegistry<KuhnState, KuhnAction>(
    'kuhn-poker',
    {
      conservative: () => kuhnArchetypeOpponent('conservative'),
      aggressive: () => kuhnArchetypeOpponent('aggressive'),
      intermediate: () => kuhnArchetypeOpponent('intermediate'),
      cfr: () => kuhnCfrOpponent({ play: 'argmax' }),
      'cfr-sampled': () => kuhnCfrOpponent({ play: 'sample' }),
      random: () => policyOpponent({ id: 'random', game: kuhnGame, policy: () => [0.5, 0.5] }),
    },
    [],
  );
}

export function rpsOpponentRegistry(): OpponentRegistry<RpsState, RpsThrow> {
  const fixed: Record<string, () => OpponentV1<RpsState, RpsThrow>> = {};
  for (const rule of RPS_BOTS.values()) fixed[rule.id] = () => rpsBotOpponent(rule);
  fixed.random = rpsRandomOpponent;
  return makeRegistry('rps', fixed, []);
}

export const OPPONENT_ENV_IDS = ['tictactoe', 'kuhn-poker', 'rps'] as const;
export type OpponentEnvId = (typeof OPPONENT_ENV_IDS)[number];

/** The registry of every env in `OPPONENT_ENV_IDS`. */
const REGISTRIES = new Map<string, () => OpponentRegistry<unknown, unknown>>([
  ['tictactoe', ticTacToeOpponentRegistry],
  ['kuhn-poker', kuhnOpponentRegistry],
  ['rps', rpsOpponentRegistry],
]);

/** The opponent registry of an env id. */
export function opponentRegistry(envId: 'tictactoe'): OpponentRegistry<TicTacToeState, TicTacToeAction>;
export function opponentRegistry(envId: 'kuhn-poker'): OpponentRegistry<KuhnState, KuhnAction>;
export function opponentRegistry(envId: 'rps'): OpponentRegistry<RpsState, RpsThrow>;
export function opponentRegistry(envId: string): OpponentRegistry<unknown, unknown>;
export function opponentRegistry(envId: string): OpponentRegistry<unknown, unknown> {
  const registry = REGISTRIES.get(envId);
  if (registry === undefined) throw new UnknownIdError('env', envId, OPPONENT_ENV_IDS);
  return registry();
}

/** Builds opponent `id` for env `envId`. */
export function createOpponent(envId: 'tictactoe', id: string): OpponentV1<TicTacToeState, TicTacToeAction>;
export function createOpponent(envId: 'kuhn-poker', id: string): OpponentV1<KuhnState, KuhnAction>;
export function createOpponent(envId: 'rps', id: string): OpponentV1<RpsState, RpsThrow>;
export function createOpponent(envId: string, id: string): OpponentV1<unknown, unknown>;
export function createOpponent(envId: string, id: string): OpponentV1<unknown, unknown> {
  return opponentRegistry(envId).create(id);
}
