/**
 * The Tic-Tac-Toe text face: boards drawn from the agent's point of view (the agent is always `X`, the
 * opponent `O`, empty cells `.`), 1-based rows and columns, the `(row, col)` action parser, and a finished
 * attempt's moves on one line (`ticTacToeMovesLine`, the `reveal: 'moves'` option).
 */

import type { ParsedAction, PromptStyle } from '@mage-rl/spec';
import { excerpt, firstActionBlock } from '../text/action-tag';
import { emptyCells, type TicTacToeAction, type TicTacToeState } from './game';

/** Board rows from the agent's point of view: `X` agent, `O` opponent, `.` empty. */
export function agentRows(state: TicTacToeState, agent: number): string[] {
  const mine = agent === 0 ? state.x : state.o;
  const theirs = agent === 0 ? state.o : state.x;
  const rows: string[] = [];
  for (let r = 0; r < state.size; r++) {
    let row = '';
    for (let c = 0; c < state.size; c++) {
      const bit = 1 << (r * state.size + c);
      row += (mine & bit) !== 0 ? 'X' : (theirs & bit) !== 0 ? 'O' : '.';
    }
    rows.push(row);
  }
  return rows;
}

/** `(row, col)`, 1-based. */
export function cellText(cell: TicTacToeAction, size: number): string {
  return `(${Math.floor(cell / size) + 1}, ${(cell % size) + 1})`;
}

function compactCell(cell: TicTacToeAction, size: number): string {
  return `( ${Math.floor(cell / size) + 1} , ${(cell % size) + 1} )`;
}

/** The text a policy writes to play `cell`. */
export function formatTicTacToeAction(cell: TicTacToeAction, size: number, style: PromptStyle): string {
  return style === 'compact'
    ? `<action> ${compactCell(cell, size)} </action>`
    : `<action>${cellText(cell, size)}</action>`;
}

/** A move as it appears in event lines. */
export function moveText(cell: TicTacToeAction, size: number, style: PromptStyle): string {
  return style === 'compact' ? compactCell(cell, size) : cellText(cell, size);
}

/** The board for the prompt. */
export function renderBoard(state: TicTacToeState, agent: number, style: PromptStyle): string {
  const rows = agentRows(state, agent);
  if (style === 'compact') return `board\n${rows.map((r) => [...r].join(' ')).join('\n')}`;
  const n = state.size;
  const header = `    ${Array.from({ length: n }, (_, c) => String(c + 1)).join('   ')}`;
  const lines = rows.map((r, i) => `${i + 1}   ${[...r].join(' | ')}`);
  const legal = emptyCells(state)
    .map((c) => cellText(c, n))
    .join(', ');
  return `${header}\n${lines.join('\n')}\nYou are X, the opponent is O, '.' is an empty cell. Empty cells: ${legal || 'none'}.`;
}

/**
 * A finished attempt's moves on one line (the env's reveal with `reveal: 'moves'`): the opponent's
 * `opening` cell when the agent sat second, then the attempt's event lines as the env wrote them, in order
 * — an invalid turn's line too, so the line counts every turn. Compact: `end . opponent ( 1 , 1 ) . you
 * ( 2 , 2 ) opponent ( 1 , 2 ) . invalid . you ( 3 , 3 ) ...`; verbose: `This attempt's moves: The opponent
 * played (1, 1) first. You played (2, 2); the opponent played (1, 2). invalid: (2, 2) is taken. ...`.
 */
export function ticTacToeMovesLine(
  opening: TicTacToeAction | undefined,
  events: readonly string[],
  size: number,
  style: PromptStyle,
): string {
  if (style === 'compact') {
    const first = opening === undefined ? [] : [`opponent ${moveText(opening, size, style)}`];
    return ['end', ...first, ...events].join(' . ');
  }
  const first = opening === undefined ? [] : [`The opponent played ${moveText(opening, size, style)} first.`];
  const sentences = events.map((e) => (/[.!?]$/.test(e) ? e : `${e}.`));
  return `This attempt's moves: ${[...first, ...sentences].join(' ')}`;
}

/**
 * The agent's legal moves of a finished attempt on one line (the env's reveal with `reveal: 'line'`).
 * Compact: each cell one word, its row and column digits (`end you 22 13 31`): a game never plays a cell
 * twice, so no word of the line repeats (in `( 2 , 2 ) ( 1 , 3 )` the brackets and digits do); verbose:
 * `Your moves this attempt: (2, 2), (1, 3), (3, 1).` Against a frozen opponent these moves alone replay
 * the attempt.
 */
export function ticTacToeAgentLine(
  moves: readonly TicTacToeAction[],
  size: number,
  style: PromptStyle,
): string {
  if (style === 'compact') {
    return ['end', 'you', ...moves.map((m) => `${Math.floor(m / size) + 1}${(m % size) + 1}`)].join(' ');
  }
  const cells = moves.map((m) => moveText(m, size, style));
  return `Your moves this attempt: ${cells.length > 0 ? cells.join(', ') : 'none'}.`;
}

export function ticTacToeRules(size: number, style: PromptStyle, maxTurns: number): string {
  if (style === 'compact') {
    return `tictactoe ${size} x ${size} . you X . opponent O . ${size} in a row wins . answer <action> ( row , col ) </action>`;
  }
  return [
    `You are playing Tic-Tac-Toe on a ${size}×${size} board against an opponent. You are X and the opponent is O.`,
    `Players take turns placing their mark in an empty cell. The first player to get ${size} marks in a row (horizontally, vertically or diagonally) wins; a full board without such a line is a draw.`,
    `Rows and columns are numbered 1 to ${size} from the top-left corner. After each of your moves the opponent replies.`,
    `Win: +10, loss: -10, draw: 0. You have at most ${maxTurns} turns; an unreadable or illegal move wastes a turn.`,
    `Answer with your move as (row, col) inside action tags, for example <action>(2, 3)</action>.`,
  ].join('\n');
}

/**
 * The first `(digits, digits)`; digits unbounded (the body is already capped at `MAX_ACTION_BODY`
 * characters, and the pattern is unambiguous, so matching stays cheap). A bounded count would skip an
 * over-long first pair and read a later one.
 */
const CELL_RE = /\(\s*(\d+)\s*,\s*(\d+)\s*\)/;

/**
 * Parse the first `(row, col)` of the first `<action>` block on `state`'s board size. Never throws. Whether
 * the cell is empty is the env's rule, checked when the move is played, so a taken cell counts as a rule
 * violation, not as unreadable text.
 */
export function parseTicTacToeAction(text: string, state: TicTacToeState): ParsedAction<TicTacToeAction> {
  const block = firstActionBlock(text);
  if (!block.ok) return { valid: false, reason: block.reason };
  const m = CELL_RE.exec(block.body);
  if (!m) return { valid: false, reason: `no (row, col) in <action>${excerpt(block.body)}</action>` };
  // Any digit string is a finite number or Infinity; a huge one is never read as a small coordinate.
  const row = Number(m[1]);
  const col = Number(m[2]);
  const n = state.size;
  if (row < 1 || row > n || col < 1 || col > n) {
    return { valid: false, reason: `${excerpt(`(${m[1]}, ${m[2]})`)} is off the ${n}×${n} board` };
  }
  return { valid: true, action: (row - 1) * n + (col - 1), text: `(${row}, ${col})` };
}

/** What one of the env's history lines says: the agent's cell and the opponent's reply (0-based), if any. */
export interface TicTacToeEventFacts {
  readonly agent: TicTacToeAction | null;
  readonly opponent: TicTacToeAction | null;
}

/** Reads a history line of the env (either style); an invalid turn's line reports no move. */
export function parseTicTacToeEvent(event: string, size: number): TicTacToeEventFacts {
  const cell = (who: string): TicTacToeAction | null => {
    const m = new RegExp(`${who} \\( ?(\\d+) ?, ?(\\d+) ?\\)`, 'i').exec(event);
    return m ? (Number(m[1]) - 1) * size + (Number(m[2]) - 1) : null;
  };
  return { agent: cell('you(?: played)?'), opponent: cell('opponent(?: played)?') };
}
