/**
 * The Tic-Tac-Toe warm-start teacher: win if possible, else block if needed, else a random legal move.
 * Note-blind it never models the opponent, so it teaches format and legal play. Reading its notes (a
 * share of meta-episodes, `adaptive`), it identifies a deterministic pattern player from the moves its
 * earlier attempts recorded and plays the best response to it; against anyone else it plays as before.
 */

import type { FinishedAttemptFactsV1, PolicyV1, Rng } from '@mage-rl/core';
import { parseTicTacToeEvent, type TicTacToeEnv } from '@mage-rl/envs/tictactoe';
import { PATTERN_NAMES, patternOrder } from '@mage-rl/opponents';
import { envTeacher, infoString, infoStrings, type TeacherOptions } from './teacher-policy';

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

/** Whether `mark` holds a whole line of the flat board. */
function holdsLine(flat: readonly string[], n: number, mark: 'X' | 'O'): boolean {
  return lines(n).some((line) => line.every((cell) => flat[cell] === mark));
}

/** A pattern player's move: the first empty cell in its order. */
const patternMove = (flat: readonly string[], order: readonly number[]): number =>
  order.find((cell) => flat[cell] === '.') ?? -1;

/**
 * The best response to a deterministic pattern player on the flat board (agent `X` to move): the move of
 * the quickest forced win, else of a draw, else the first move (lowest cell), by exhaustive search.
 */
function bestMoveAgainst(flat: readonly string[], n: number, order: readonly number[]): number {
  const search = (b: string[], depth: number): { value: number; cell: number } => {
    let best = { value: -Infinity, cell: -1 };
    for (let cell = 0; cell < b.length; cell++) {
      if (b[cell] !== '.') continue;
      b[cell] = 'X';
      let value: number;
      if (holdsLine(b, n, 'X')) value = 100 - depth;
      else if (!b.includes('.')) value = 0;
      else {
        const reply = patternMove(b, order);
        b[reply] = 'O';
        if (holdsLine(b, n, 'O')) value = depth - 100;
        else value = b.includes('.') ? search(b, depth + 1).value : 0;
        b[reply] = '.';
      }
      b[cell] = '.';
      if (value > best.value) best = { value, cell };
    }
    return best;
  };
  return search([...flat], 0).cell;
}

/**
 * The pattern players whose every reply in the noted attempts matches the recorded one (the opening too:
 * second to move, a pattern player opens with its first cell, which the current board must show).
 */
export function consistentPatterns(
  board: readonly string[],
  second: boolean,
  earlier: readonly FinishedAttemptFactsV1[],
): (typeof PATTERN_NAMES)[number][] {
  const n = board.length;
  const flatNow = [...board.join('')];
  return PATTERN_NAMES.filter((name) => {
    const order = patternOrder(name, n);
    if (second && flatNow[order[0]!] !== 'O') return false;
    return earlier.every((attempt) => {
      const b = Array.from({ length: n * n }, () => '.');
      if (second) b[order[0]!] = 'O';
      for (const event of attempt.events) {
        const { agent, opponent } = parseTicTacToeEvent(event, n);
        if (agent !== null) b[agent] = 'X';
        if (opponent === null) continue;
        if (patternMove(b, order) !== opponent) return false;
        b[opponent] = 'O';
      }
      return true;
    });
  });
}

/**
 * The adaptive move: the best response to the pattern player the notes identify, when every consistent
 * pattern agrees on it (3×3 boards; exhaustive search); `null` when the notes identify none.
 */
export function adaptiveTicTacToeMove(
  board: readonly string[],
  second: boolean,
  earlier: readonly FinishedAttemptFactsV1[],
): number | null {
  const n = board.length;
  if (n !== 3 || earlier.length === 0) return null;
  const candidates = consistentPatterns(board, second, earlier);
  const flat = [...board.join('')];
  const moves = new Set(candidates.map((name) => bestMoveAgainst(flat, n, patternOrder(name, n))));
  return moves.size === 1 ? [...moves][0]! : null;
}

/** With probability `mistakes`, once a cell is taken, a taken cell (an invalid move); null otherwise. */
export function deliberateMistake(board: readonly string[], rng: Rng, mistakes: number): number | null {
  if (mistakes <= 0) return null;
  const taken = [...board.join('')].flatMap((ch, i) => (ch === '.' ? [] : [i]));
  return taken.length > 0 && rng.next() < mistakes ? rng.pick(taken) : null;
}

export function ticTacToeTeacher(env: TicTacToeEnv, options: TicTacToeTeacherOptions = {}): PolicyV1 {
  const mistakes = options.mistakes ?? 0;
  const id = 'teacher-tictactoe';
  return envTeacher(env, id, options, (observation, rng, notes) => {
    const board = infoStrings(observation, 'board', id);
    const mistake = deliberateMistake(board, rng, mistakes);
    if (mistake !== null) return mistake;
    if (notes.adaptive) {
      const second = infoString(observation, 'seat', id) === 'second';
      const adapted = adaptiveTicTacToeMove(board, second, notes.earlier);
      if (adapted !== null) return adapted;
    }
    // A full board never reaches a play turn; answer something parseable anyway.
    return ticTacToeTeacherMove(board, rng)?.cell ?? 0;
  });
}
