/**
 * The Tic-Tac-Toe warm-start teacher: win if possible, else block if needed, else a random
 * legal move. It never models the opponent, so it teaches format and legal play, not exploitation.
 */

import type { PolicyV1, Rng } from '@mage-rl/core';
import type { TicTacToeEnv } from '@mage-rl/envs/tictactoe';
import { infoStrings, type TeacherOptions, teacherPolicy } from './teacher-policy';

/** Cells (row-major, 0-based) of every line of an n×n board: rows, columns, both diagonals. */
function lines(n: number): number[][] {
  const out: number[][] = [];
  for (let r = 0; r < n; r++) out.push(Array.from({ length: n }, (_, c) => r * n + c));
  for (let c = 0; c < n; c++) out.push(Array.from({ length: n }, (_, r) => r * n + c));
  out.push(Array.from({ length: n }, (_, i) => i * n + i));
  out.push(Array.from({ length: n }, (_, i) => i * n + (n - 1 - i)));
  return out;
}

/** Empty cells that complete a line of `mark` (n − 1 of `mark` and one empty cell), sorted. */
export function completingCells(board: readonly string[], mark: 'X' | 'O'): number[] {
  const n = board.length;
  const flat = board.join('');
  const found = new Set<number>();
  for (const line of lines(n)) {
    let count = 0;
    let empty = -1;
    let empties = 0;
    for (const cell of line) {
      const ch = flat[cell];
      if (ch === mark) count++;
      else if (ch === '.') {
        empties++;
        empty = cell;
      }
    }
    if (count === n - 1 && empties === 1) found.add(empty);
  }
  return [...found].sort((a, b) => a - b);
}

/** Which rule chose the move. */
export type TicTacToeTeacherReason = 'win' | 'block' | 'random';

/**
 * The teacher's move on `board` (rows from the agent's view: `X` agent, `O` opponent, `.` empty):
 * a winning cell if any, else a cell that blocks an opponent line, else a uniformly random empty cell.
 * Ties are broken uniformly with `rng`. Returns `null` on a full board.
 */
export function ticTacToeTeacherMove(
  board: readonly string[],
  rng: Rng,
): { cell: number; reason: TicTacToeTeacherReason } | null {
  const wins = completingCells(board, 'X');
  if (wins.length > 0) return { cell: rng.pick(wins), reason: 'win' };
  const blocks = completingCells(board, 'O');
  if (blocks.length > 0) return { cell: rng.pick(blocks), reason: 'block' };
  const flat = board.join('');
  const empty: number[] = [];
  for (let i = 0; i < flat.length; i++) if (flat[i] === '.') empty.push(i);
  if (empty.length === 0) return null;
  return { cell: rng.pick(empty), reason: 'random' };
}

export interface TicTacToeTeacherOptions extends TeacherOptions {
  /**
   * Fraction of play turns (once a cell is taken) on which the teacher plays a taken cell — an invalid
   * move. Warm-start corpora train only on valid turns, so the mistake is never learned, but the turns
   * after it are: the model sees how to go on after an invalid move (without them it tends to repeat
   * the rejected move). Default 0.
   */
  readonly mistakes?: number;
}

export function ticTacToeTeacher(env: TicTacToeEnv, options: TicTacToeTeacherOptions = {}): PolicyV1 {
  const style = options.style ?? 'compact';
  const mistakes = options.mistakes ?? 0;
  const id = 'teacher-tictactoe';
  return teacherPolicy({
    id,
    style,
    play(observation, rng) {
      const board = infoStrings(observation, 'board', id);
      if (mistakes > 0) {
        const taken = [...board.join('')].flatMap((ch, i) => (ch === '.' ? [] : [i]));
        if (taken.length > 0 && rng.next() < mistakes) return env.formatAction(rng.pick(taken), style);
      }
      const move = ticTacToeTeacherMove(board, rng);
      // A full board never reaches a play turn; answer something parseable anyway.
      return env.formatAction(move?.cell ?? 0, style);
    },
  });
}
