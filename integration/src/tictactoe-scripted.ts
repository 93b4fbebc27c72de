/**
 * Scripted Tic-Tac-Toe policies that read only the prompt text (verbose style), for the acceptance tests
 * and the runner benchmark.
 *
 * - `fixedLinePolicy`: plays the first empty cell in row-major order; its reflections change nothing.
 * - `adaptivePolicy`: plays the same fixed line in attempt 1. After an attempt it reflects: it replays the
 *   attempt's moves from the prompt and writes which preferred-pattern opponents are consistent with the
 *   replies it saw (`<remark>pattern: a|b</remark>`). In later attempts it reads that note from its memory
 *   and plays a line that forces a win against the first consistent pattern.
 */

import type { PolicyRequestV1, PolicyV1 } from '@mage-rl/core';
import { scriptedPolicy } from '@mage-rl/core/testing';
import { PATTERN_NAMES, type PatternName, patternOrder } from '@mage-rl/opponents';

type Cell = 'X' | 'O' | '.';
type Board = Cell[];

const LINES = [
  [0, 1, 2],
  [3, 4, 5],
  [6, 7, 8],
  [0, 3, 6],
  [1, 4, 7],
  [2, 5, 8],
  [0, 4, 8],
  [2, 4, 6],
] as const;
const ORDERS = new Map<PatternName, number[]>(PATTERN_NAMES.map((p) => [p, patternOrder(p, 3)]));

const wins = (b: Board, who: Cell) => LINES.some((l) => l.every((i) => b[i] === who));
const empty = (b: Board) => b.flatMap((c, i) => (c === '.' ? [i] : []));

/** Every 3×3 board drawn in `text` (verbose renderer: `1   X | . | O`), in order. */
export function boardsIn(text: string): Board[] {
  const boards: Board[] = [];
  const lines = text.split('\n');
  for (let i = 0; i + 2 < lines.length; i++) {
    const rows = [lines[i], lines[i + 1], lines[i + 2]].map((l, r) => {
      const m = new RegExp(`^${r + 1}   ([XO.]) \\| ([XO.]) \\| ([XO.])$`).exec(l ?? '');
      return m ? (m.slice(1, 4) as Cell[]) : null;
    });
    if (rows.every((r) => r !== null)) {
      boards.push((rows as Cell[][]).flat());
      i += 2;
    }
  }
  return boards;
}

const cellOf = (r: string, c: string) => (Number(r) - 1) * 3 + (Number(c) - 1);
const action = (cell: number) => `<action>(${Math.floor(cell / 3) + 1}, ${(cell % 3) + 1})</action>`;
const lastUser = (r: PolicyRequestV1) => r.messages[r.messages.length - 1]?.content ?? '';
const allText = (r: PolicyRequestV1) => r.messages.map((m) => m.content).join('\n');

/** The fixed line: the first empty cell in row-major order. */
function fixedMove(board: Board): number {
  return empty(board)[0] ?? 0;
}

/** A first move that forces a win against a deterministic pattern from `board` (agent to move). */
export function winningMove(board: Board, pattern: PatternName): number | null {
  const order = ORDERS.get(pattern) as number[];
  for (const a of empty(board)) {
    const b = board.slice();
    b[a] = 'X';
    if (wins(b, 'X')) return a;
    if (empty(b).length === 0) continue;
    const reply = order.find((i) => b[i] === '.') as number;
    b[reply] = 'O';
    if (wins(b, 'O') || empty(b).length === 0) continue;
    if (winningMove(b, pattern) !== null) return a;
  }
  return null;
}

/** Patterns that would have answered every move of the finished attempt as the opponent did. */
function consistentPatterns(prompt: string, prior: readonly PatternName[]): PatternName[] {
  const start = boardsIn(prompt)[0];
  if (!start) return [...prior];
  const events = [...prompt.matchAll(/You played \((\d), (\d)\)(?:; the opponent played \((\d), (\d)\))?/g)];
  return prior.filter((p) => {
    const order = ORDERS.get(p) as number[];
    const b = start.slice();
    for (const e of events) {
      b[cellOf(e[1] as string, e[2] as string)] = 'X';
      if (e[3] === undefined) continue;
      const reply = cellOf(e[3], e[4] as string);
      if (order.find((i) => b[i] === '.') !== reply) return false;
      b[reply] = 'O';
    }
    return true;
  });
}

/** Candidate patterns from the last `pattern: …` note in the prompt (all of them when there is none). */
function notedPatterns(text: string): PatternName[] {
  const notes = [...text.matchAll(/pattern: ([a-z|-]+)/g)];
  const last = notes[notes.length - 1]?.[1];
  if (!last) return [...PATTERN_NAMES];
  return last.split('|').filter((p): p is PatternName => (PATTERN_NAMES as readonly string[]).includes(p));
}

export function fixedLinePolicy(): PolicyV1 & { readonly calls: number } {
  return scriptedPolicy((r) => {
    if (r.phase === 'reflect') return '<remark>I will play the same way.</remark>';
    const board = boardsIn(lastUser(r)).at(-1);
    return action(board ? fixedMove(board) : 0);
  }, 'fixed-line');
}

export function adaptivePolicy(): PolicyV1 & { readonly calls: number } {
  return scriptedPolicy((r) => {
    const text = allText(r);
    if (r.phase === 'reflect') {
      const found = consistentPatterns(text, notedPatterns(text));
      return `<remark>pattern: ${found.join('|') || 'unknown'}</remark>`;
    }
    const board = boardsIn(lastUser(r)).at(-1);
    if (!board) return action(0);
    const noted = text.includes('pattern: ') ? notedPatterns(text) : [];
    const target = noted[0];
    const move = target ? winningMove(board, target) : null;
    return action(move ?? fixedMove(board));
  }, 'adaptive');
}
