import { KUHN_INITIAL_STATE, type KuhnState, kuhnGame } from '@mage-rl/envs/kuhn-poker';
import { describe, expect, it } from 'vitest';
import { solveGame } from '../cfr/solve';
import { kuhnArchetypePolicy } from '../kuhn/archetypes';
import { type PolicyFn, tablePolicy } from '../strategy/strategy';
import { bestResponse, expectedReturns, nashConv } from './best-response';

const root = KUHN_INITIAL_STATE;
const game = kuhnGame;

describe('best response on Kuhn Poker', () => {
  it('against the aggressive archetype: worked out by hand, 1/3 chip per hand from either seat', () => {
    // Agent as player 0 vs aggressive (always bets when unopened; facing a bet folds J, calls Q/K):
    //   J: bet → always called by Q/K (−2); check → opponent bets, fold (−1).          best −1
    //   Q: bet → J folds (+1), K calls (−2): −0.5; check → bet, call: J +2, K −2: 0.   best  0
    //   K: bet → J folds (+1), Q calls (+2): 1.5; check → bet, call: +2.               best  2
    //   value (−1 + 0 + 2) / 3 = 1/3, and the best response checks every card first.
    const aggressive = kuhnArchetypePolicy('aggressive');
    const br0 = bestResponse({ game, root, strategy: aggressive, player: 0 });
    expect(br0.value).toBeCloseTo(1 / 3, 12);
    expect(br0.strategy).toEqual({
      'J:': { PASS: 1, BET: 0 },
      'Q:': { PASS: 1, BET: 0 },
      'K:': { PASS: 1, BET: 0 },
      'J:pb': { PASS: 1, BET: 0 },
      'Q:pb': { PASS: 0, BET: 1 },
      'K:pb': { PASS: 0, BET: 1 },
    });
    // Agent as player 1: aggressive player 0 always bets. J folds (−1), Q calls (J +2 / K −2: 0), K calls (+2).
    const br1 = bestResponse({ game, root, strategy: aggressive, player: 1 });
    expect(br1.value).toBeCloseTo(1 / 3, 12);
    expect(br1.strategy['J:b']).toEqual({ PASS: 1, BET: 0 });
    expect(br1.strategy['Q:b']).toEqual({ PASS: 0, BET: 1 });
    expect(br1.strategy['K:b']).toEqual({ PASS: 0, BET: 1 });
    // Never reached ('p' never happens against an opponent who always bets): ties go to PASS.
    expect(br1.strategy['K:p']).toEqual({ PASS: 1, BET: 0 });
  });

  it('a best response is at least as good as any strategy, including the equilibrium', () => {
    for (const archetype of ['conservative', 'aggressive', 'intermediate'] as const) {
      const policy = kuhnArchetypePolicy(archetype);
      for (const player of [0, 1] as const) {
        const br = bestResponse({ game, root, strategy: policy, player });
        const brPolicy = tablePolicy(game, br.strategy);
        const mixed: PolicyFn<KuhnState> = (s, p) => (p === player ? brPolicy(s, p) : policy(s, p));
        expect(expectedReturns({ game, root, strategy: mixed })[player]).toBeCloseTo(br.value, 12);
        const uniform: PolicyFn<KuhnState> = (s, p) => (p === player ? [0.5, 0.5] : policy(s, p));
        expect(br.value).toBeGreaterThanOrEqual(
          expectedReturns({ game, root, strategy: uniform })[player] - 1e-12,
        );
      }
    }
  });

  it('the equilibrium cannot be exploited by much; archetypes can', () => {
    const eq = solveGame({ game, root, iterations: 2000 }).strategy;
    expect(bestResponse({ game, root, strategy: eq, player: 0 }).value).toBeCloseTo(-1 / 18, 2);
    expect(bestResponse({ game, root, strategy: eq, player: 1 }).value).toBeCloseTo(1 / 18, 2);
    expect(nashConv({ game, root, strategy: kuhnArchetypePolicy('aggressive') })).toBeGreaterThan(0.5);
  });
});
