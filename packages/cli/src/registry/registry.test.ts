import { UnknownIdError } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { createCliOpponent, createEnv, ENV_IDS, knownOpponentIds, matchGame, solvableGame } from './registry';

describe('cli registry', () => {
  it('creates every env by id and fails on unknown ids with the known list', () => {
    expect(ENV_IDS).toEqual(['tictactoe', 'kuhn-poker', 'sokoban']);
    for (const id of ENV_IDS) expect(createEnv(id).id).toBe(id);
    expect(() => createEnv('chess')).toThrow(UnknownIdError);
    expect(() => createEnv('chess')).toThrow(/Known env ids: tictactoe, kuhn-poker, sokoban/);
    expect(() => createEnv('toString')).toThrow(UnknownIdError);
  });

  it('creates opponents by env and id', () => {
    expect(createCliOpponent('tictactoe', 'mcts-25').id).toBe('mcts-25');
    expect(createCliOpponent('kuhn-poker', 'cfr').id).toBe('cfr');
    expect(knownOpponentIds('tictactoe')).toContain('mcts-<N>');
    expect(knownOpponentIds('tictactoe')).not.toContain('mcts-100');
    expect(knownOpponentIds('kuhn-poker')).toContain('intermediate');
    expect(() => createCliOpponent('sokoban', 'random')).toThrow(/Known env ids: tictactoe, kuhn-poker/);
    expect(matchGame('kuhn-poker').game.numPlayers).toBe(2);
    expect(solvableGame('kuhn').envId).toBe('kuhn-poker');
    expect(() => solvableGame('tictactoe')).toThrow(/Known game ids: kuhn/);
  });
});
