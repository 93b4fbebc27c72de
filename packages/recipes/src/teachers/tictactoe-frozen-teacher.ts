/**
 * The warm-start teacher of Tic-Tac-Toe against a frozen opponent (`tictactoe-frozen`). Note-blind it plays
 * minimax with a uniformly random choice among the optimal moves, fresh every attempt: the memoryless
 * player of the env's adaptation ceiling, which beats MCTS-100 about half the time as the first player
 * (the Tic-Tac-Toe teacher's win-or-block play seldom does). Reading its notes (the share `adaptive`) it
 * replays the agent's moves of an earlier won attempt, which against a frozen opponent wins again. Its
 * notes state the result and the env's reveal, the agent's line, which is all a replay needs.
 */

import type { FinishedAttemptFactsV1, PolicyV1 } from '@mage-rl/core';
import { parseTicTacToeEvent, type TicTacToeEnv } from '@mage-rl/envs/tictactoe';
import { envTeacher, infoStrings } from './teacher-policy';
import { completingCells, deliberateMistake, type TicTacToeTeacherOptions } from './tictactoe-teacher';

/** The game value for `X` to move on the flat agent-view board: +1 a forced win, 0 a draw, −1 a loss. */
function valueFor(flat: string[], n: number, memo: Map<string, number>): number {
  const key = flat.join('');
  const known = memo.get(key);
  if (known !== undefined) return known;
  let best = -1;
  let any = false;
  for (let cell = 0; cell < flat.length && best < 1; cell++) {
    if (flat[cell] !== '.') continue;
    any = true;
    best = Math.max(best, moveValue(flat, n, cell, memo));
  }
  const value = any ? best : 0;
  memo.set(key, value);
  return value;
}

/** The value for `X` of playing `cell`: the opponent (`O`) then moves, so the board is swapped. */
function moveValue(flat: string[], n: number, cell: number, memo: Map<string, number>): number {
  flat[cell] = 'X';
  let value: number;
  if (completesLine(flat, n, cell)) value = 1;
  else if (!flat.includes('.')) value = 0;
  else value = -valueFor(swap(flat), n, memo);
  flat[cell] = '.';
  return value;
}

const swap = (flat: readonly string[]): string[] => flat.map((c) => (c === 'X' ? 'O' : c === 'O' ? 'X' : c));

/** Whether `X` at `cell` holds a whole line through it. */
function completesLine(flat: readonly string[], n: number, cell: number): boolean {
  const r = Math.floor(cell / n);
  const c = cell % n;
  const all = (cells: number[]) => cells.every((i) => flat[i] === 'X');
  const idx = Array.from({ length: n }, (_, i) => i);
  return (
    all(idx.map((i) => r * n + i)) ||
    all(idx.map((i) => i * n + c)) ||
    (r === c && all(idx.map((i) => i * n + i))) ||
    (r + c === n - 1 && all(idx.map((i) => i * n + (n - 1 - i))))
  );
}

/** Board values for `X` to move on 3×3, by board (a few thousand at most). */
const memo3 = new Map<string, number>();

/**
 * The optimal moves for `X` (the agent) on `board` (rows from the agent's view), in cell order; empty on a
 * full board. Exhaustive search on 3×3, memoised; larger boards fall back to win-or-block's cells and
 * then every empty cell.
 */
export function optimalTicTacToeMoves(board: readonly string[]): number[] {
  const n = board.length;
  const flat = [...board.join('')];
  const empty = flat.flatMap((ch, i) => (ch === '.' ? [i] : []));
  if (n !== 3) {
    const wins = completingCells(board, 'X');
    if (wins.length > 0) return wins;
    const blocks = completingCells(board, 'O');
    return blocks.length > 0 ? blocks : empty;
  }
  const values = empty.map((cell) => moveValue(flat, n, cell, memo3));
  const best = Math.max(...values);
  return empty.filter((_, i) => values[i] === best);
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
