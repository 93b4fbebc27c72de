import { createRng } from '@mage-rl/core';
import { initialTicTacToeState, ticTacToeFromRows, ticTacToeGame } from '@mage-rl/envs/tictactoe';
import { describe, expect, it } from 'vitest';
import { playMatch } from '../match/match';
import { mctsOpponent } from '../mcts/mcts-opponent';
import { patternOpponent } from '../tictactoe/patterns';
import { randomOpponent } from '../tictactoe/random';
import { minimaxActions, minimaxOpponent, minimaxValue } from './minimax';

const game = ticTacToeGame(3);

describe('minimax', () => {
  it('knows Tic-Tac-Toe is a draw and finds forced wins', () => {
    expect(minimaxValue(game, initialTicTacToeState(3))).toBe(0);
    expect(minimaxActions(game, ticTacToeFromRows(['XX.', 'OO.', '...']))).toEqual([2]);
    // Every first move draws with perfect play.
    expect(minimaxActions(game, initialTicTacToeState(3))).toHaveLength(9);
    // O must answer a corner opening in the centre.
    expect(minimaxActions(game, ticTacToeFromRows(['X..', '...', '...']))).toEqual([4]);
  });

  it('breaks ties at random with the injected rng and never loses', () => {
    const op = minimaxOpponent(game);
    const s = initialTicTacToeState(3);
    const moves = new Set(Array.from({ length: 40 }, (_, i) => op.act(s, { rng: createRng(i), player: 0 })));
    expect(moves.size).toBeGreaterThan(3);
    for (const opponent of [
      randomOpponent(game),
      patternOpponent('corners-first'),
      mctsOpponent({ simulations: 100 }),
    ]) {
      const r = playMatch({ game, root: s, agent: op, opponent, games: 20, rng: createRng(7) });
      expect(r.losses).toBe(0);
    }
  });
});
