/**
 * The warm-start teacher of Tic-Tac-Toe against a frozen opponent (`tictactoe-frozen`). Note-blind it plays
 * minimax with a uniformly random choice among the optimal moves, fresh every attempt: the memoryless
 * player of the env's adaptation ceiling, which beats MCTS-100 about half the time as the first player
 * (the Tic-Tac-Toe teacher's win-or-block play seldom does). Reading its notes (the share `adaptive`) it
 * replays the agent's moves of an earlier won attempt, which against a frozen opponent wins again. Its
 * notes state the result and the env's reveal, the agent's line, which is all a replay needs.
 */

import type { FinishedAttemptFactsV1, PolicyV1 } from '@mage-rl/core';
import {
  parseTicTacToeEvent,
  type TicTacToeEnv,
  ticTacToeFromRows,
  ticTacToeGame,
} from '@mage-rl/envs/tictactoe';
import { minimaxActions } from '@mage-rl/opponents';
import { envTeacher, infoStrings } from './teacher-policy';
import { completingCells, deliberateMistake, type TicTacToeTeacherOptions } from './tictactoe-teacher';

/** Tic-Tac-Toe 3×3: one model, so opponents' minimax memo serves every call. */
const GAME3 = ticTacToeGame(3);

const swapMarks = (row: string): string => row.replace(/[XO]/g, (m) => (m === 'X' ? 'O' : 'X'));

/**
 * The optimal moves for `X` (the agent) on `board` (rows from the agent's view), in cell order; empty on a
 * full board. On 3×3 opponents' memoised minimax, the agent the player to move (its marks are `O` in the
 * game's state when it sits second); larger boards fall back to win-or-block's cells and then every empty
 * cell.
 */
export function optimalTicTacToeMoves(board: readonly string[]): number[] {
  if (board.length !== 3) {
    const wins = completingCells(board, 'X');
    if (wins.length > 0) return wins;
    const blocks = completingCells(board, 'O');
    if (blocks.length > 0) return blocks;
    return [...board.join('')].flatMap((ch, i) => (ch === '.' ? [i] : []));
  }
  const flat = board.join('');
  const second = flat.split('O').length > flat.split('X').length;
  return minimaxActions(GAME3, ticTacToeFromRows(second ? board.map(swapMarks) : board));
}

/** The agent's moves, in order, of the first earlier attempt that was won; null when none was. */
export function wonLine(earlier: readonly FinishedAttemptFactsV1[], n: number): number[] | null {
  const won = earlier.find((a) => a.outcome.label === 'win');
  if (!won) return null;
  return won.events.flatMap((e) => {
    const { agent } = parseTicTacToeEvent(e, n);
    return agent === null ? [] : [agent];
  });
}

/** The teacher; `mistakes` as Tic-Tac-Toe's (deliberate invalid moves, never trained on). */
export function ticTacToeFrozenTeacher(env: TicTacToeEnv, options: TicTacToeTeacherOptions = {}): PolicyV1 {
  const id = 'teacher-tictactoe-frozen';
  const mistakes = options.mistakes ?? 0;
  return envTeacher(
    env,
    id,
    options,
    (observation, rng, notes) => {
      const board = infoStrings(observation, 'board', id);
      const mistake = deliberateMistake(board, rng, mistakes);
      if (mistake !== null) return mistake;
      if (notes.adaptive) {
        // The replayed move is the one after as many as the agent has stones on the board.
        const line = wonLine(notes.earlier, board.length);
        const played = [...board.join('')].filter((ch) => ch === 'X').length;
        const next = line?.[played];
        if (next !== undefined && board.join('')[next] === '.') return next;
      }
      const moves = optimalTicTacToeMoves(board);
      // A full board never reaches a play turn; answer something parseable anyway.
      return moves.length > 0 ? rng.pick(moves) : 0;
    },
    { noteFacts: 'reveal' },
  );
}
