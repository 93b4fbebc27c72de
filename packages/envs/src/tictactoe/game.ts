/**
 * The Tic-Tac-Toe game model: an n×n board (n = 3..5, win length n) stored as two bitboards.
 * Bit `r * size + c` is cell (r, c), 0-based and row-major. Player 0 moves first and owns `x`; player 1
 * owns `o`. (The text face draws the *agent* as X whatever its seat; the game model only knows players.)
 */

import { type GameModelV1, InvalidArgumentError, TERMINAL_PLAYER } from '@mage-rl/spec';

export interface TicTacToeState {
  readonly size: number;
  /** Stones of player 0 (the first mover). */
  readonly x: number;
  /** Stones of player 1. */
  readonly o: number;
  /** Player to move (meaningless once the game is over). */
  readonly toMove: 0 | 1;
  /** Winning player, `null` while nobody has a line (a full board without a line is a draw). */
  readonly winner: 0 | 1 | null;
}

/** Cell index, 0-based, row-major: `row * size + col`. */
export type TicTacToeAction = number;

export const TICTACTOE_MIN_SIZE = 3;
export const TICTACTOE_MAX_SIZE = 5;

function checkSize(size: number): void {
  if (!Number.isInteger(size) || size < TICTACTOE_MIN_SIZE || size > TICTACTOE_MAX_SIZE) {
    throw new InvalidArgumentError(
      `Tic-Tac-Toe size must be an integer in ${TICTACTOE_MIN_SIZE}..${TICTACTOE_MAX_SIZE}, got ${size}.`,
      { context: { size } },
    );
  }
}

const LINE_CACHE = new Map<number, Int32Array>();

/** Bit masks of every winning line (rows, columns, both diagonals) of an n×n board. Cached per size. */
export function lineMasks(size: number): Int32Array {
  const cached = LINE_CACHE.get(size);
  if (cached) return cached;
  checkSize(size);
  const lines: number[] = [];
  for (let r = 0; r < size; r++) {
    let m = 0;
    for (let c = 0; c < size; c++) m |= 1 << (r * size + c);
    lines.push(m);
  }
  for (let c = 0; c < size; c++) {
    let m = 0;
    for (let r = 0; r < size; r++) m |= 1 << (r * size + c);
    lines.push(m);
  }
  let d = 0;
  let a = 0;
  for (let i = 0; i < size; i++) {
    d |= 1 << (i * size + i);
    a |= 1 << (i * size + (size - 1 - i));
  }
  lines.push(d, a);
  const masks = Int32Array.from(lines);
  LINE_CACHE.set(size, masks);
  return masks;
}

/** Mask with one bit per cell of an n×n board. */
export function fullMask(size: number): number {
  return size * size >= 31 ? 0x7fffffff : (1 << (size * size)) - 1;
}

/** True when `bits` contains a complete line of the board `lines` belongs to. */
export function hasLine(bits: number, lines: Int32Array): boolean {
  for (let i = 0; i < lines.length; i++) {
    const m = lines[i]!;
    if ((bits & m) === m) return true;
  }
  return false;
}

/** The player with a complete line, or `null`. */
export function winnerOf(state: TicTacToeState): 0 | 1 | null {
  const lines = lineMasks(state.size);
  if (hasLine(state.x, lines)) return 0;
  if (hasLine(state.o, lines)) return 1;
  return null;
}

/** Bit mask of the empty cells. */
export function emptyMask(state: TicTacToeState): number {
  return fullMask(state.size) & ~(state.x | state.o);
}

/** Empty cell indices in ascending order. */
export function emptyCells(state: TicTacToeState): number[] {
  const out: number[] = [];
  let m = emptyMask(state);
  while (m !== 0) {
    const low = m & -m;
    out.push(31 - Math.clz32(low));
    m ^= low;
  }
  return out;
}

/** True when the game is over (a line or a full board). */
export function isTicTacToeOver(state: TicTacToeState): boolean {
  return state.winner !== null || (state.x | state.o) === fullMask(state.size);
}

/** The empty board. */
export function initialTicTacToeState(size = 3): TicTacToeState {
  checkSize(size);
  return { size, x: 0, o: 0, toMove: 0, winner: null };
}

/** Build a state from rows of `X` (player 0), `O` (player 1) and `.`; whose move follows from counts. */
export function ticTacToeFromRows(rows: readonly string[]): TicTacToeState {
  const size = rows.length;
  checkSize(size);
  let x = 0;
  let o = 0;
  rows.forEach((row, r) => {
    if (row.length !== size) throw new InvalidArgumentError(`Row ${r} must have ${size} cells: '${row}'.`);
    for (let c = 0; c < size; c++) {
      const ch = row[c];
      if (ch === 'X' || ch === 'x') x |= 1 << (r * size + c);
      else if (ch === 'O' || ch === 'o') o |= 1 << (r * size + c);
      else if (ch !== '.' && ch !== '_' && ch !== '-') {
        throw new InvalidArgumentError(`Unknown cell '${ch}' in row ${r}.`);
      }
    }
  });
  const nx = popcount(x);
  const no = popcount(o);
  if (nx !== no && nx !== no + 1) {
    throw new InvalidArgumentError(`X must have as many stones as O or one more (X ${nx}, O ${no}).`);
  }
  const partial: TicTacToeState = { size, x, o, toMove: nx === no ? 0 : 1, winner: null };
  return { ...partial, winner: winnerOf(partial) };
}

export function popcount(v: number): number {
  let n = v >>> 0;
  n -= (n >>> 1) & 0x55555555;
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return Math.imul((n + (n >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** The state after the player to move takes `cell`. Throws on an occupied or out-of-range cell. */
export function applyTicTacToe(state: TicTacToeState, cell: TicTacToeAction): TicTacToeState {
  const { size } = state;
  const bit = 1 << cell;
  if (
    !Number.isInteger(cell) ||
    cell < 0 ||
    cell >= size * size ||
    ((state.x | state.o) & bit) !== 0 ||
    isTicTacToeOver(state)
  ) {
    throw new InvalidArgumentError(`Illegal Tic-Tac-Toe move ${cell} in state ${ticTacToeKey(state)}.`);
  }
  const lines = lineMasks(size);
  if (state.toMove === 0) {
    const x = state.x | bit;
    return { size, x, o: state.o, toMove: 1, winner: hasLine(x, lines) ? 0 : null };
  }
  const o = state.o | bit;
  return { size, x: state.x, o, toMove: 0, winner: hasLine(o, lines) ? 1 : null };
}

/** `X..O.....:0` style key (player 0 stones as X, player 1 as O, then the player to move). */
export function ticTacToeKey(state: TicTacToeState): string {
  let s = '';
  for (let i = 0; i < state.size * state.size; i++) {
    const bit = 1 << i;
    s += (state.x & bit) !== 0 ? 'X' : (state.o & bit) !== 0 ? 'O' : '.';
  }
  return `${s}:${state.toMove}`;
}

const GAME_CACHE = new Map<number, GameModelV1<TicTacToeState, TicTacToeAction>>();

/** The game model for an n×n board (cached per size). Returns: +1 / −1 for a win / loss, 0 for a draw. */
export function ticTacToeGame(size = 3): GameModelV1<TicTacToeState, TicTacToeAction> {
  const cached = GAME_CACHE.get(size);
  if (cached) return cached;
  checkSize(size);
  const game: GameModelV1<TicTacToeState, TicTacToeAction> = {
    specificationVersion: 'v1',
    numPlayers: 2,
    currentPlayer: (s) => (isTicTacToeOver(s) ? TERMINAL_PLAYER : s.toMove),
    legalActions: (s) => (isTicTacToeOver(s) ? [] : emptyCells(s)),
    apply: applyTicTacToe,
    isTerminal: isTicTacToeOver,
    returns: (s) => (s.winner === 0 ? [1, -1] : s.winner === 1 ? [-1, 1] : [0, 0]),
    actionKey: (a) => `${Math.floor(a / size) + 1},${(a % size) + 1}`,
    stateKey: ticTacToeKey,
  };
  GAME_CACHE.set(size, game);
  return game;
}
