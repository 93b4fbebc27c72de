import { KUHN_INITIAL_STATE, kuhnGame } from '@mage-rl/envs/kuhn-poker';
import { initialTicTacToeState, ticTacToeGame } from '@mage-rl/envs/tictactoe';
import { describe, expect, it } from 'vitest';
import { kuhnArchetypePolicy } from '../kuhn/archetypes';
import { PATTERN_NAMES, patternOpponent } from '../tictactoe/patterns';
import { bestResponse } from './best-response';
import { deterministicBestResponse } from './deterministic';

const game = ticTacToeGame(3);
const root = initialTicTacToeState(3);

describe('deterministicBestResponse', () => {
  it('finds a forced win against every pattern player from both seats', () => {
    for (const name of PATTERN_NAMES) {
      const { policy } = patternOpponent(name);
      for (const player of [0, 1]) {
        expect(deterministicBestResponse({ game, root, player, policy }), `${name} seat ${player}`).toBe(1);
      }
    }
  });

  it("equals the exact best response's value from mid-game positions", () => {
    // From positions three moves in, the full game tree is small enough for `bestResponse`.
    for (const opening of [
      [4, 0, 8],
      [0, 4, 2],
      [1, 3, 5],
    ]) {
      const start = opening.reduce((s, cell) => game.apply(s, cell), root);
      for (const name of PATTERN_NAMES) {
        const { policy } = patternOpponent(name);
        for (const player of [0, 1]) {
          const exact = bestResponse({ game, root: start, strategy: policy, player }).value;
          expect(deterministicBestResponse({ game, root: start, player, policy })).toBeCloseTo(exact, 12);
        }
      }
    }
  });

  it('is undefined against a mixed policy or at chance nodes', () => {
    const uniform = (state: Parameters<typeof game.legalActions>[0]) => {
      const n = game.legalActions(state).length;
      return Array.from({ length: n }, () => 1 / n);
    };
    expect(deterministicBestResponse({ game, root, player: 0, policy: uniform })).toBeUndefined();
    // Kuhn Poker deals cards first.
    const policy = kuhnArchetypePolicy('aggressive');
    expect(
      deterministicBestResponse({ game: kuhnGame, root: KUHN_INITIAL_STATE, player: 0, policy }),
    ).toBeUndefined();
  });
});
