import { createRng } from '@mage-rl/core';
import { applyTicTacToe, emptyCells, initialTicTacToeState, ticTacToeGame } from '@mage-rl/envs/tictactoe';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { playMatch } from '../match/match';
import { mctsOpponent } from '../mcts/mcts-opponent';
import { PATTERN_NAMES, patternOpponent, patternOrder } from './patterns';
import { randomOpponent } from './random';

/** 1-based `row,col` pairs (how the reference orders are written) to cell indices. */
const cells = (spec: string) => spec.split(' ').map((rc) => (Number(rc[0]) - 1) * 3 + (Number(rc[2]) - 1));

describe('pattern players', () => {
  it('use the exact reference cell orders on 3×3', () => {
    expect(patternOrder('centre-first')).toEqual(cells('2,2 1,1 1,3 3,1 3,3 1,2 2,1 2,3 3,2'));
    expect(patternOrder('corners-first')).toEqual(cells('1,1 1,3 3,1 3,3 2,2 1,2 2,1 2,3 3,2'));
    expect(patternOrder('edges-first')).toEqual(cells('1,2 2,1 2,3 3,2 2,2 1,1 1,3 3,1 3,3'));
    expect(patternOrder('main-diagonal-first')).toEqual(cells('1,1 2,2 3,3 1,3 3,1 1,2 2,1 2,3 3,2'));
    expect(patternOrder('anti-diagonal-first')).toEqual(cells('1,3 2,2 3,1 1,1 3,3 1,2 2,1 2,3 3,2'));
    expect(patternOrder('bottom-right-sweep')).toEqual(cells('3,3 3,1 1,3 1,1 2,2 3,2 2,3 2,1 1,2'));
  });

  it('are permutations of the board on every size', () => {
    for (const size of [3, 4, 5]) {
      for (const name of PATTERN_NAMES) {
        const order = patternOrder(name, size);
        expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: size * size }, (_, i) => i));
      }
    }
  });

  it('play the first empty cell of their order, ignoring threats', () => {
    const op = patternOpponent('centre-first');
    let s = initialTicTacToeState(3);
    expect(op.act(s, { rng: createRng(1), player: 0 })).toBe(4);
    s = applyTicTacToe(s, 4); // X centre
    s = applyTicTacToe(s, 0); // O corner
    expect(op.act(s, { rng: createRng(1), player: 0 })).toBe(2);
    expect(patternOpponent('bottom-right-sweep').id).toBe('pattern-bottom-right-sweep');
  });
});

describe('every Tic-Tac-Toe opponent', () => {
  const game = ticTacToeGame(3);
  const opponents = [
    ...PATTERN_NAMES.map((n) => patternOpponent(n)),
    randomOpponent(game),
    mctsOpponent({ simulations: 30 }),
  ];
  it('returns a legal move in any reachable position', () => {
    fc.assert(
      fc.property(fc.integer(), fc.array(fc.nat(), { maxLength: 8 }), (seed, picks) => {
        let s = initialTicTacToeState(3);
        for (const p of picks) {
          const next = applyTicTacToe(s, emptyCells(s)[p % emptyCells(s).length]!);
          if (game.isTerminal(next)) break;
          s = next;
        }
        return opponents.every((op) =>
          emptyCells(s).includes(op.act(s, { rng: createRng(seed), player: s.toMove })),
        );
      }),
      { numRuns: 100 },
    );
  });

  it('MCTS-100 beats random and the patterns most of the time and rarely loses', () => {
    const mcts = mctsOpponent({ simulations: 100 });
    const root = initialTicTacToeState(3);
    const vsRandom = playMatch({
      game,
      root,
      agent: mcts,
      opponent: randomOpponent(game),
      games: 40,
      rng: createRng(1),
    });
    expect(vsRandom.wins).toBeGreaterThanOrEqual(30);
    expect(vsRandom.losses).toBeLessThanOrEqual(2);
    const vsPattern = playMatch({
      game,
      root,
      agent: mcts,
      opponent: patternOpponent('centre-first'),
      games: 20,
      rng: createRng(2),
    });
    expect(vsPattern.wins).toBeGreaterThanOrEqual(15);
  });
});
