/**
 * Reference levels of Tic-Tac-Toe against a frozen opponent (the env's `replies: 'board'`: the opponent's
 * randomness is keyed by the meta-episode and the board, so it answers each board the same way in every
 * attempt). Its replies come from a search whose outcome has no closed form (MCTS-100), so the levels are
 * a seeded estimate: meta-episodes on consecutive task seeds, played through the env itself, counted per
 * attempt (the CLI adds Wilson intervals). Two scripted players on 3×3:
 *
 * - memoryless: minimax with a uniformly random choice among the optimal moves, fresh every attempt;
 * - replay: the same until an attempt wins, then that attempt's moves again (the same boards, so the same
 *   replies and the same win): the reader that replays a winning line.
 *
 * Both draw their tie-breaks from the same streams, so until the replay player wins it plays exactly the
 * memoryless moves: its attempt k wins exactly where the memoryless player has won by attempt k (its
 * success equals the memoryless pass@k), which checks that the opponent is frozen.
 *
 * See architecture/opponents.md.
 */

import {
  createTicTacToe,
  type TicTacToeAction,
  type TicTacToeState,
  ticTacToeGame,
} from '@mage-rl/envs/tictactoe';
import { InvalidArgumentError, type OpponentV1, type Rng, type Seat } from '@mage-rl/spec';
import { minimaxActions } from '../minimax/minimax';

export const FROZEN_PLAYERS = ['memoryless', 'replay'] as const;
export type FrozenPlayer = (typeof FROZEN_PLAYERS)[number];

/** Counts of one player over the meta-episodes, per attempt k (index k − 1). */
export interface FrozenPlayerCounts {
  /** Meta-episodes in which attempt k was won. */
  readonly wins: readonly number[];
  /** Meta-episodes in which attempt k was drawn. */
  readonly draws: readonly number[];
  /** Meta-episodes won in some attempt up to k (pass@k). */
  readonly passes: readonly number[];
}

export interface FrozenLevelsOptions {
  /** A fresh opponent (one per meta-episode): `mctsOpponent({ simulations: 100 })`. */
  readonly opponent: () => OpponentV1<TicTacToeState, TicTacToeAction>;
  readonly seat: Seat;
  readonly metaEpisodes: number;
  readonly attempts: number;
  /** The first task seed; the meta-episodes play seeds `firstSeed`, `firstSeed + 1`, … Default 0. */
  readonly firstSeed?: number;
  /** The seeded stream of a seed (core's `createRng`): the task's, as the runner makes it, and the players'. */
  readonly rngOf: (seed: number | string) => Rng;
}

export interface FrozenLevels {
  readonly metaEpisodes: number;
  readonly attempts: number;
  readonly seat: Seat;
  readonly players: Readonly<Record<FrozenPlayer, FrozenPlayerCounts>>;
}

const game = ticTacToeGame(3);

/** One meta-episode of `player` on task `seed`: each attempt's outcome label. */
function playMetaEpisode(
  player: FrozenPlayer,
  seed: number,
  options: FrozenLevelsOptions,
): ('win' | 'draw' | 'loss')[] {
  const env = createTicTacToe({ replies: 'board' });
  const episode = env.createEpisode({
    seed,
    seat: options.seat,
    style: 'compact',
    rng: options.rngOf(seed),
    opponent: options.opponent(),
  });
  let winningLine: TicTacToeAction[] | undefined;
  const outcomes: ('win' | 'draw' | 'loss')[] = [];
  for (let attempt = 0; attempt < options.attempts; attempt++) {
    episode.reset(attempt);
    // Both players draw the same stream: until the replay player has won, it plays the memoryless moves.
    const rng = options.rngOf(`frozen-levels/${seed}/attempt-${attempt}`);
    const line: TicTacToeAction[] = [];
    let label = 'truncated';
    while (!episode.done) {
      const replayed = winningLine?.[line.length];
      const move = replayed ?? rng.pick(minimaxActions(game, episode.state));
      line.push(move);
      const step = episode.step({ valid: true, action: move, text: '' });
      if (step.outcome) label = step.outcome.label;
    }
    const outcome = label === 'win' ? 'win' : label === 'draw' ? 'draw' : 'loss';
    outcomes.push(outcome);
    if (player === 'replay' && outcome === 'win') winningLine ??= line;
  }
  return outcomes;
}

/** The counts of both players over `metaEpisodes` task seeds. */
export function frozenTicTacToeLevels(options: FrozenLevelsOptions): FrozenLevels {
  const { metaEpisodes, attempts } = options;
  for (const [name, n] of [
    ['metaEpisodes', metaEpisodes],
    ['attempts', attempts],
  ] as const) {
    if (!Number.isInteger(n) || n < 1) {
      throw new InvalidArgumentError(`${name} must be a positive integer, got ${String(n)}.`);
    }
  }
  const first = options.firstSeed ?? 0;
  const counts = (player: FrozenPlayer): FrozenPlayerCounts => {
    const wins = Array.from({ length: attempts }, () => 0);
    const draws = Array.from({ length: attempts }, () => 0);
    const passes = Array.from({ length: attempts }, () => 0);
    for (let i = 0; i < metaEpisodes; i++) {
      const outcomes = playMetaEpisode(player, first + i, options);
      let passed = false;
      outcomes.forEach((o, k) => {
        if (o === 'win') wins[k]! += 1;
        if (o === 'draw') draws[k]! += 1;
        passed ||= o === 'win';
        if (passed) passes[k]! += 1;
      });
    }
    return { wins, draws, passes };
  };
  const players = { memoryless: counts('memoryless'), replay: counts('replay') };
  return { metaEpisodes, attempts, seat: options.seat, players };
}
