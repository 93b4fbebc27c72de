import { describe, expect, it } from 'vitest';
import {
  createDoors,
  createFrozenTicTacToe,
  createKuhnPoker,
  createRps,
  createSokoban,
  createTicTacToe,
  createTreasure,
  ENV_IDS,
} from './index';

describe('@mage-rl/envs root', () => {
  it('lists the env ids, matching the env objects', () => {
    expect(ENV_IDS).toEqual([
      'tictactoe',
      'kuhn-poker',
      'sokoban',
      'treasure',
      'doors',
      'rps',
      'tictactoe-frozen',
    ]);
    expect(
      [
        createTicTacToe(),
        createKuhnPoker(),
        createSokoban(),
        createTreasure(),
        createDoors(),
        createRps(),
        createFrozenTicTacToe(),
      ].map((e) => e.id),
    ).toEqual([...ENV_IDS]);
    expect([
      createTicTacToe().needsOpponent,
      createKuhnPoker().needsOpponent,
      createSokoban().needsOpponent,
      createTreasure().needsOpponent,
      createDoors().needsOpponent,
      createRps().needsOpponent,
      createFrozenTicTacToe().needsOpponent,
    ]).toEqual([true, true, false, false, false, true, true]);
  });
});
