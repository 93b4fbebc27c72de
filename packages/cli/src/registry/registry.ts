/**
 * The CLI's explicit registry of environments and opponents by id (no registration by import side
 * effects). Unknown ids fail with `UnknownIdError`, whose message lists the known ids.
 */

import { type EnvV1, type GameModelV1, type OpponentV1, UnknownIdError } from '@mage-rl/core';
import { createKuhnPoker, KUHN_INITIAL_STATE, kuhnGame } from '@mage-rl/envs/kuhn-poker';
import { createSokoban } from '@mage-rl/envs/sokoban';
import { createTicTacToe, initialTicTacToeState, ticTacToeGame } from '@mage-rl/envs/tictactoe';
import { opponentRegistry } from '@mage-rl/opponents';

type AnyEnv = EnvV1<unknown, unknown>;

/** Env factories by id; each takes the env's own options object (validated by the env). */
export const ENV_FACTORIES: Readonly<Record<string, (options?: Record<string, unknown>) => AnyEnv>> = {
  tictactoe: (options) => createTicTacToe(options ?? {}) as unknown as AnyEnv,
  'kuhn-poker': (options) => createKuhnPoker(options ?? {}) as unknown as AnyEnv,
  sokoban: (options) => createSokoban(options ?? {}) as unknown as AnyEnv,
};

export const ENV_IDS: readonly string[] = Object.keys(ENV_FACTORIES);

export function createEnv(id: string, options?: Record<string, unknown>): AnyEnv {
  const make = Object.hasOwn(ENV_FACTORIES, id) ? ENV_FACTORIES[id] : undefined;
  if (!make) throw new UnknownIdError('env', id, ENV_IDS);
  return make(options);
}

/** A two-player game the CLI can play scripted matches on: its model and the initial state. */
export interface MatchGame {
  readonly envId: string;
  readonly game: GameModelV1<unknown, unknown>;
  readonly root: unknown;
}

const MATCH_GAMES: Readonly<Record<string, () => MatchGame>> = {
  tictactoe: () => ({
    envId: 'tictactoe',
    game: ticTacToeGame(3) as unknown as GameModelV1<unknown, unknown>,
    root: initialTicTacToeState(3),
  }),
  'kuhn-poker': () => ({
    envId: 'kuhn-poker',
    game: kuhnGame as unknown as GameModelV1<unknown, unknown>,
    root: KUHN_INITIAL_STATE,
  }),
};

/** Env ids that have opponents (and so matches). */
export const OPPONENT_ENV_IDS: readonly string[] = Object.keys(MATCH_GAMES);

export function matchGame(envId: string): MatchGame {
  const make = Object.hasOwn(MATCH_GAMES, envId) ? MATCH_GAMES[envId] : undefined;
  if (!make) throw new UnknownIdError('env', envId, OPPONENT_ENV_IDS);
  return make();
}

/** Known opponent ids of an env (parametric ones as patterns, e.g. `mcts-<N>`). */
export function knownOpponentIds(envId: string): readonly string[] {
  if (!OPPONENT_ENV_IDS.includes(envId)) throw new UnknownIdError('env', envId, OPPONENT_ENV_IDS);
  const reg = opponentRegistry(envId);
  return [
    ...reg.patterns,
    ...reg.ids.filter((id) => !reg.patterns.some((p) => id.startsWith(p.split('<')[0] ?? ''))),
  ];
}

/** Builds opponent `id` of env `envId`. */
export function createCliOpponent(envId: string, id: string): OpponentV1<unknown, unknown> {
  if (!OPPONENT_ENV_IDS.includes(envId)) throw new UnknownIdError('env', envId, OPPONENT_ENV_IDS);
  return opponentRegistry(envId).create(id);
}

/** Game names accepted by `mage solve` / `mage best-response` and the env they stand for. */
const SOLVABLE: Readonly<Record<string, string>> = { kuhn: 'kuhn-poker', 'kuhn-poker': 'kuhn-poker' };

export function solvableGame(name: string): MatchGame {
  const envId = Object.hasOwn(SOLVABLE, name) ? SOLVABLE[name] : undefined;
  if (!envId) throw new UnknownIdError('game', name, ['kuhn']);
  return matchGame(envId);
}
