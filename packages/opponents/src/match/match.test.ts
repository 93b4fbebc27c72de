import { createRng } from '@mage-rl/core';
import { firstLegalOpponent } from '@mage-rl/core/testing';
import { initialTicTacToeState, ticTacToeGame } from '@mage-rl/envs/tictactoe';
import { describe, expect, it } from 'vitest';
import { patternOpponent } from '../tictactoe/patterns';
import { playGame, playMatch } from './match';

const game = ticTacToeGame(3);
const root = initialTicTacToeState(3);

describe('playMatch', () => {
  it('plays deterministic players exactly, from the seat asked for', () => {
    // first-legal (0, 1, 2, …) vs centre-first (4, 0 taken → 2, 6, …): X takes 0, O 4, X 1, O 2, X 3, O 6 wins.
    const final = playGame(
      game,
      root,
      [firstLegalOpponent(game), patternOpponent('centre-first')],
      createRng(1),
    );
    expect(game.returns(final)).toEqual([-1, 1]);
    const first = playMatch({
      game,
      root,
      agent: firstLegalOpponent(game),
      opponent: patternOpponent('centre-first'),
      games: 3,
      seat: 'first',
      rng: createRng(1),
    });
    expect(first).toMatchObject({ wins: 0, draws: 0, losses: 3, agentFirst: 3, meanReturn: -1 });
    const alt = playMatch({
      game,
      root,
      agent: firstLegalOpponent(game),
      opponent: patternOpponent('centre-first'),
      games: 4,
      rng: createRng(1),
    });
    expect(alt.agentFirst).toBe(2);
    expect(alt.meanReturnBySeat[0]).toBe(-1);
  });

  it('refuses illegal moves and bad arguments', () => {
    const cheat = { specificationVersion: 'v1' as const, id: 'cheat', act: () => 0 };
    expect(() =>
      playMatch({ game, root, agent: cheat, opponent: cheat, games: 1, rng: createRng(1) }),
    ).toThrow(/illegal action/);
    expect(() =>
      playMatch({ game, root, agent: cheat, opponent: cheat, games: 0, rng: createRng(1) }),
    ).toThrow(/positive integer/);
  });
});
