/**
 * `mage adaptation-ceiling tictactoe`: the levels of Tic-Tac-Toe against a frozen opponent (the env option
 * `replies: 'board'`), estimated by opponents' `frozenTicTacToeLevels` on consecutive task seeds — memoryless
 * minimax and the reader that replays a winning line, per attempt, with 95% Wilson intervals.
 */

import { ConfigError, createRng, type RateV1, rate } from '@mage-rl/core';
import { createTicTacToe, TICTACTOE_ENV_ID, type TicTacToeOptions } from '@mage-rl/envs/tictactoe';
import { createOpponent, FROZEN_PLAYERS, type FrozenPlayer, frozenTicTacToeLevels } from '@mage-rl/opponents';
import { printTable } from '../output/format';
import type { Io } from '../program/error-boundary';
import { positiveInt } from './game-options';
import { envOptionsOf } from './train-overrides';

/** One player's rates per attempt k (index k − 1). */
export interface FrozenPlayerRates {
  readonly win: readonly RateV1[];
  readonly draw: readonly RateV1[];
  readonly passAtK: readonly RateV1[];
}

export interface FrozenCeilingJson {
  readonly env: typeof TICTACTOE_ENV_ID;
  readonly options: Readonly<Record<string, unknown>>;
  readonly attempts: number;
  /** Meta-episodes per opponent and seat, on task seeds 0, 1, … */
  readonly metaEpisodes: number;
  readonly opponents: readonly {
    readonly id: string;
    readonly seat: 'first' | 'second';
    readonly players: Readonly<Record<FrozenPlayer, FrozenPlayerRates>>;
  }[];
}

export interface FrozenCeilingRequest {
  readonly opponents: readonly string[];
  readonly seat: 'first' | 'second' | 'mixed';
  readonly attempts: string;
  readonly episodes: string;
  readonly option: readonly string[];
}

/** The estimate of `request`: 3×3 with `replies: 'board'` (the default here), the opponents by id. */
export function frozenCeilingJson(request: FrozenCeilingRequest): FrozenCeilingJson {
  const env = createTicTacToe({ replies: 'board', ...envOptionsOf(request.option) } as TicTacToeOptions);
  if (env.options.replies !== 'board' || env.options.size !== 3) {
    throw new ConfigError(
      'adaptation-ceiling tictactoe estimates the levels against a frozen opponent on 3×3: it needs replies board and size 3.',
      { path: '--option' },
    );
  }
  const attempts = positiveInt(request.attempts, '--attempts', 8);
  // About 3 s per 1000 meta-episodes of MCTS-100, opponent and seat.
  const metaEpisodes = positiveInt(request.episodes, '--episodes', 100_000);
  const seats = request.seat === 'mixed' ? (['first', 'second'] as const) : [request.seat];
  for (const id of request.opponents) createOpponent(TICTACTOE_ENV_ID, id);
  const opponents = request.opponents.flatMap((id) =>
    seats.map((seat) => {
      const levels = frozenTicTacToeLevels({
        opponent: () => createOpponent(TICTACTOE_ENV_ID, id),
        seat,
        metaEpisodes,
        attempts,
        rngOf: createRng,
      });
      const rates = (counts: readonly number[]) => counts.map((c) => rate(c, metaEpisodes));
      const ratesOf = (p: FrozenPlayer): FrozenPlayerRates => {
        const c = levels.players[p];
        return { win: rates(c.wins), draw: rates(c.draws), passAtK: rates(c.passes) };
      };
      const players = { memoryless: ratesOf('memoryless'), replay: ratesOf('replay') };
      return { id, seat, players };
    }),
  );
  return { env: TICTACTOE_ENV_ID, options: env.options, attempts, metaEpisodes, opponents };
}

const shown = (r: RateV1) => `${r.rate.toFixed(3)} [${r.low.toFixed(2)}, ${r.high.toFixed(2)}]`;

export function printFrozenCeiling(io: Io, json: FrozenCeilingJson): void {
  io.stdout(
    `Adaptation ceiling (estimate), tictactoe 3×3 against a frozen opponent (replies board: one reply per ` +
      `board for the whole meta-episode), ${json.attempts} attempts, ${json.metaEpisodes} meta-episodes ` +
      `(task seeds 0..${json.metaEpisodes - 1}) per opponent and seat; rates with 95% Wilson intervals.\n` +
      'memoryless: minimax, a random optimal move, fresh every attempt; replay: the same until a game is ' +
      'won, then that game’s moves again (its win k equals the memoryless pass@k: the replies are frozen).\n\n',
  );
  const k = Array.from({ length: json.attempts }, (_, i) => i + 1);
  printTable(
    io,
    ['opponent', 'seat', 'player', ...k.map((i) => `win ${i}`), ...k.map((i) => `pass@${i}`)],
    json.opponents.flatMap((o) =>
      FROZEN_PLAYERS.map((p) => [
        o.id,
        o.seat,
        p,
        ...o.players[p].win.map(shown),
        ...o.players[p].passAtK.map(shown),
      ]),
    ),
  );
}
