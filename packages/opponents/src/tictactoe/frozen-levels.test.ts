import { createRng } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { mctsOpponent } from '../mcts/mcts-opponent';
import { POPULATION_PRESETS } from '../population/presets';
import { frozenTicTacToeLevels } from './frozen-levels';

describe('Tic-Tac-Toe against a frozen MCTS-100', () => {
  const levels = (seat: 'first' | 'second', metaEpisodes: number) =>
    frozenTicTacToeLevels({
      opponent: () => mctsOpponent({ simulations: 100 }),
      seat,
      metaEpisodes,
      attempts: 3,
      rngOf: createRng,
    });

  it('first to move, memoryless minimax wins about half its games; replaying a won line keeps winning', () => {
    const r = levels('first', 120);
    const { memoryless, replay } = r.players;
    for (const wins of memoryless.wins) {
      expect(wins / 120).toBeGreaterThan(0.35);
      expect(wins / 120).toBeLessThan(0.65);
    }
    // Minimax never loses: every game it does not win is a draw.
    memoryless.wins.forEach((w, k) => {
      expect(w + memoryless.draws[k]!).toBe(120);
    });
    // The replay player plays the memoryless moves until it wins, then wins again on the same boards.
    expect(replay.wins).toEqual(memoryless.passes);
    expect(replay.passes).toEqual(memoryless.passes);
    expect(replay.wins[2]).toBeGreaterThan(replay.wins[0]!);
  });

  it('second to move it can hardly win; bad counts are refused', () => {
    const r = levels('second', 30);
    expect(r.players.memoryless.wins[0]).toBeLessThan(5);
    expect(() => levels('first', 0)).toThrow(/metaEpisodes/);
  });

  it('its population preset holds mcts-100 alone: no pattern player', () => {
    expect(POPULATION_PRESETS.tictactoe.mcts).toEqual([{ id: 'mcts-100', weight: 1 }]);
  });
});
