import { TERMINAL_PLAYER } from '@mage-rl/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  emptyCells,
  initialTicTacToeState,
  lineMasks,
  popcount,
  type TicTacToeState,
  ticTacToeFromRows,
  ticTacToeGame,
  ticTacToeKey,
  winnerOf,
} from './game';

/** All lines of an n×n board as cell lists, written out independently of the bit code. */
function linesOf(n: number): number[][] {
  const lines: number[][] = [];
  const range = [...Array(n).keys()];
  for (const r of range) lines.push(range.map((c) => r * n + c));
  for (const c of range) lines.push(range.map((r) => r * n + c));
  lines.push(range.map((i) => i * n + i));
  lines.push(range.map((i) => i * n + (n - 1 - i)));
  return lines;
}

describe('tic-tac-toe game model', () => {
  for (const n of [3, 4, 5]) {
    it(`recognises a win on every line of the ${n}×${n} board, for both players`, () => {
      expect(lineMasks(n).length).toBe(2 * n + 2);
      const game = ticTacToeGame(n);
      for (const line of linesOf(n)) {
        for (const winner of [0, 1] as const) {
          // The winner plays the line; the other player plays cells off the line (never completing one).
          const others = [...Array(n * n).keys()].filter((c) => !line.includes(c));
          let s = initialTicTacToeState(n);
          if (winner === 1) s = game.apply(s, others.pop() as number);
          for (let i = 0; i < n; i++) {
            expect(game.isTerminal(s)).toBe(false);
            s = game.apply(s, line[i] as number);
            if (i < n - 1) {
              // pick an opponent cell that does not complete a line of its own
              const pick = others.find((c) => {
                const next = game.apply(s, c);
                return next.winner === null;
              }) as number;
              others.splice(others.indexOf(pick), 1);
              s = game.apply(s, pick);
            }
          }
          expect(s.winner).toBe(winner);
          expect(winnerOf(s)).toBe(winner);
          expect(game.isTerminal(s)).toBe(true);
          expect(game.currentPlayer(s)).toBe(TERMINAL_PLAYER);
          expect(game.legalActions(s)).toEqual([]);
          expect(game.returns(s)).toEqual(winner === 0 ? [1, -1] : [-1, 1]);
        }
      }
    });
  }

  it('scores a full board without a line as a draw', () => {
    const s = ticTacToeFromRows(['XOX', 'XOO', 'OXX']);
    const game = ticTacToeGame(3);
    expect(s.winner).toBeNull();
    expect(game.isTerminal(s)).toBe(true);
    expect(game.returns(s)).toEqual([0, 0]);
  });

  it('lists empty cells in row-major order and rejects occupied cells', () => {
    const s = ticTacToeFromRows(['X..', '.O.', '..X']);
    expect(s.toMove).toBe(1);
    expect(emptyCells(s)).toEqual([1, 2, 3, 5, 6, 7]);
    const game = ticTacToeGame(3);
    expect(() => game.apply(s, 4)).toThrow(/Illegal/);
    expect(() => game.apply(s, 9)).toThrow(/Illegal/);
    expect(game.actionKey(5)).toBe('2,3');
    expect(ticTacToeKey(s)).toBe('X...O...X:1');
  });

  it('random playouts keep the invariants (pure apply, alternating stones, winner = line)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 3, max: 5 }), fc.array(fc.nat(), { maxLength: 25 }), (n, picks) => {
        const game = ticTacToeGame(n);
        let s: TicTacToeState = initialTicTacToeState(n);
        for (const p of picks) {
          if (game.isTerminal(s)) break;
          const legal = game.legalActions(s);
          const before = ticTacToeKey(s);
          const next = game.apply(s, legal[p % legal.length] as number);
          expect(ticTacToeKey(s)).toBe(before);
          s = next;
          const d = popcount(s.x) - popcount(s.o);
          expect(d === 0 || d === 1).toBe(true);
          expect(s.toMove).toBe(d === 0 ? 0 : 1);
          expect(s.winner).toBe(winnerOf(s));
        }
      }),
    );
  });

  it('caches the game model per size', () => {
    expect(ticTacToeGame(4)).toBe(ticTacToeGame(4));
    expect(() => ticTacToeGame(6)).toThrow(/size/);
  });
});
