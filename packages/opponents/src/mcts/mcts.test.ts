import { createRng } from '@mage-rl/core';
import { nimGame } from '@mage-rl/core/testing';
import {
  applyTicTacToe,
  emptyCells,
  initialTicTacToeState,
  isTicTacToeOver,
  type TicTacToeState,
  ticTacToeFromRows,
  ticTacToeGame,
} from '@mage-rl/envs/tictactoe';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { minimaxActions, minimaxValue } from '../minimax/minimax';
import { createGenericMcts } from './generic-mcts';
import { mctsOpponent, parseMctsId } from './mcts-opponent';
import { createTicTacToeMcts } from './tictactoe-mcts';

const game = ticTacToeGame(3);

/** A position reached by `moves` random plies from the empty board (not finished). */
function randomPosition(seed: number, moves: number): TicTacToeState {
  const rng = createRng(seed);
  let s = initialTicTacToeState(3);
  for (let i = 0; i < moves; i++) {
    const next = applyTicTacToe(s, rng.pick(emptyCells(s)));
    if (isTicTacToeOver(next)) break;
    s = next;
  }
  return s;
}

describe('Tic-Tac-Toe MCTS', () => {
  it('takes an immediate win and proves it at once', () => {
    const mcts = createTicTacToeMcts({ simulations: 1000 });
    const r = mcts.search(ticTacToeFromRows(['XX.', 'OO.', '...']), createRng(1));
    expect(r.action).toBe(2);
    expect(r.rootProven).toBe(1);
    expect(r.simulations).toBeLessThan(1000);
  });

  it('blocks a threat and proves a lost position', () => {
    const mcts = createTicTacToeMcts({ simulations: 2000 });
    // O to move must block at (1,2) = cell 1 (row 1, column 2, 1-based; cells are row-major from 0).
    expect(mcts.search(ticTacToeFromRows(['X.X', '.O.', '...']), createRng(2)).action).toBe(1);
    // X threatens a double attack after any reply: O is lost (proven −1).
    const lost = mcts.search(ticTacToeFromRows(['XX.', 'O..', '...']), createRng(3));
    expect(lost.rootProven).toBe(-1);
  });

  it('agrees with minimax wherever the solver proves the root', () => {
    const mcts = createTicTacToeMcts({ simulations: 20_000 });
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 3, max: 7 }), (seed, moves) => {
        const s = randomPosition(seed, moves);
        const r = mcts.search(s, createRng(seed));
        const value = minimaxValue(game, s) * (s.toMove === 0 ? 1 : -1);
        if (r.rootProven !== null && r.rootProven !== value) return false;
        if (r.rootProven !== null) return minimaxActions(game, s).includes(r.action);
        return true;
      }),
      { numRuns: 60 },
    );
  });

  it('always returns a legal move, deterministically for a seed', () => {
    const op = mctsOpponent({ simulations: 50 });
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 0, max: 8 }), (seed, moves) => {
        const s = randomPosition(seed, moves);
        const a = op.act(s, { rng: createRng(seed), player: s.toMove });
        const b = op.act(s, { rng: createRng(seed), player: s.toMove });
        return a === b && emptyCells(s).includes(a);
      }),
      { numRuns: 100 },
    );
  });

  it('reports simulations and child statistics that add up', () => {
    const mcts = createTicTacToeMcts({ simulations: 500, solver: false });
    const r = mcts.search(initialTicTacToeState(3), createRng(4));
    expect(r.simulations).toBe(500);
    expect(r.children).toHaveLength(9);
    expect(r.children.reduce((a, c) => a + c.visits, 0)).toBe(500);
    const best = r.children.find((c) => c.action === r.action)!;
    expect(Math.max(...r.children.map((c) => c.visits))).toBe(best.visits);
  });

  it('works on larger boards', () => {
    const mcts = createTicTacToeMcts({ simulations: 300 });
    const s = initialTicTacToeState(4);
    const a = mcts.search(s, createRng(5)).action;
    expect(a).toBeGreaterThanOrEqual(0);
    expect(a).toBeLessThan(16);
  });

  it('rejects bad options and finished games', () => {
    expect(() => createTicTacToeMcts({ simulations: 0 })).toThrow(/positive integer/);
    expect(() => createTicTacToeMcts({ simulations: 10, exploration: Number.NaN })).toThrow(/exploration/);
    const done = ticTacToeFromRows(['XXX', 'OO.', '...']);
    expect(() => createTicTacToeMcts({ simulations: 10 }).search(done, createRng(1))).toThrow(/finished/);
  });

  it('parses mcts-<N> ids', () => {
    expect(parseMctsId('mcts-100')).toBe(100);
    expect(parseMctsId('mcts-0')).toBeUndefined();
    expect(parseMctsId('mcts-01')).toBeUndefined();
    expect(parseMctsId('mcts-x')).toBeUndefined();
    expect(mctsOpponent({ simulations: 7 }).id).toBe('mcts-7');
  });
});

describe('generic MCTS', () => {
  it('plays Tic-Tac-Toe like the specialised engine on forced positions', () => {
    const mcts = createGenericMcts({ game, simulations: 2000 });
    const win = mcts.search(ticTacToeFromRows(['XX.', 'OO.', '...']), createRng(1));
    expect(win.action).toBe(2);
    expect(win.rootProven).toBe(1);
    expect(mcts.search(ticTacToeFromRows(['X.X', '.O.', '...']), createRng(2)).action).toBe(1);
  });

  it('solves small Nim positions', () => {
    const mcts = createGenericMcts({ game: nimGame, simulations: 5000 });
    // 4 stones: take 1, leaving a multiple of 3.
    const r = mcts.search({ stones: 4, toMove: 0, winner: null }, createRng(3));
    expect(r.action).toBe(1);
    expect(r.rootProven).toBe(1);
    // 3 stones: lost whatever you take.
    expect(mcts.search({ stones: 3, toMove: 1, winner: null }, createRng(3)).rootProven).toBe(-1);
  });
});
