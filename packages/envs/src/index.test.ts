import { describe, expect, it } from 'vitest';
import { createKuhnPoker, createSokoban, createTicTacToe, ENV_IDS } from './index';

describe('@mage-rl/envs root', () => {
  it('lists the three env ids, matching the env objects', () => {
    expect(ENV_IDS).toEqual(['tictactoe', 'kuhn-poker', 'sokoban']);
    expect([createTicTacToe().id, createKuhnPoker().id, createSokoban().id]).toEqual([...ENV_IDS]);
    expect([
      createTicTacToe().needsOpponent,
      createKuhnPoker().needsOpponent,
      createSokoban().needsOpponent,
    ]).toEqual([true, true, false]);
  });
});
