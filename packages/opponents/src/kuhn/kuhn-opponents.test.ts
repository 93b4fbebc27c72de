import { createRng } from '@mage-rl/core';
import {
  KUHN_DEALS,
  KUHN_INITIAL_STATE,
  type KuhnState,
  kuhnDealt,
  kuhnGame,
} from '@mage-rl/envs/kuhn-poker';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bestResponse, expectedReturns } from '../best-response/best-response';
import { playMatch } from '../match/match';
import { policyOpponent } from '../strategy/policy-opponent';
import { argmaxIndex } from '../strategy/strategy';
import { KUHN_ARCHETYPES, kuhnArchetypeOpponent, kuhnArchetypePolicy } from './archetypes';
import { kuhnCfrOpponent, kuhnCfrStrategy } from './cfr-opponents';

const game = kuhnGame;
const observed = (history: string, player: 0 | 1, deal = 'deal:QK'): KuhnState => {
  let s = kuhnDealt(deal);
  for (const ch of history) s = game.apply(s, ch === 'b' ? 'BET' : 'PASS');
  return game.observe!(s, player);
};
const act = (id: (typeof KUHN_ARCHETYPES)[number], card: 'J' | 'Q' | 'K', history: string) => {
  const player = (history.length % 2) as 0 | 1;
  const other = card === 'J' ? 'Q' : 'J';
  const deal = player === 0 ? `deal:${card}${other}` : `deal:${other}${card}`;
  return kuhnArchetypeOpponent(id).act(observed(history, player, deal), { rng: createRng(1), player });
};

describe('Kuhn archetypes', () => {
  it('conservative bets or calls only with a King', () => {
    for (const h of ['', 'p', 'b', 'pb']) {
      expect(act('conservative', 'K', h)).toBe('BET');
      expect(act('conservative', 'Q', h)).toBe('PASS');
      expect(act('conservative', 'J', h)).toBe('PASS');
    }
  });

  it('aggressive bets when unopened; facing a bet folds J, calls Q and K', () => {
    for (const c of ['J', 'Q', 'K'] as const) {
      expect(act('aggressive', c, '')).toBe('BET');
      expect(act('aggressive', c, 'p')).toBe('BET');
    }
    for (const h of ['b', 'pb']) {
      expect(act('aggressive', 'J', h)).toBe('PASS');
      expect(act('aggressive', 'Q', h)).toBe('BET');
      expect(act('aggressive', 'K', h)).toBe('BET');
    }
  });

  it('intermediate: K bets/calls, J passes/folds, Q bets first and folds to a bet', () => {
    for (const h of ['', 'p', 'b', 'pb']) {
      expect(act('intermediate', 'K', h)).toBe('BET');
      expect(act('intermediate', 'J', h)).toBe('PASS');
    }
    expect(act('intermediate', 'Q', '')).toBe('BET');
    expect(act('intermediate', 'Q', 'p')).toBe('BET');
    expect(act('intermediate', 'Q', 'b')).toBe('PASS');
    expect(act('intermediate', 'Q', 'pb')).toBe('PASS');
  });

  it('only look at their own card: the hidden card never changes the action', () => {
    const ops = [
      ...KUHN_ARCHETYPES.map(kuhnArchetypeOpponent),
      kuhnCfrOpponent(),
      kuhnCfrOpponent({ play: 'sample' }),
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...KUHN_DEALS),
        fc.constantFrom('', 'p', 'b', 'pb'),
        fc.integer(),
        (deal, h, seed) => {
          const player = (h.length % 2) as 0 | 1;
          const full = observed(h, player, deal);
          // The observed state carries no opponent card.
          if (full.cards?.[1 - player] !== null) return false;
          return ops.every((op) => {
            const a = op.act(full, { rng: createRng(seed), player });
            return a === 'PASS' || a === 'BET';
          });
        },
      ),
    );
    expect(() =>
      kuhnArchetypeOpponent('conservative').act(KUHN_INITIAL_STATE, { rng: createRng(1), player: 0 }),
    ).toThrow();
  });
});

describe('Kuhn CFR opponents', () => {
  it('cfr plays the argmax of vanilla CFR’s average strategy (ties to PASS) and is hard to exploit', () => {
    const table = kuhnCfrStrategy();
    const cfr = kuhnCfrOpponent();
    expect(cfr.id).toBe('cfr');
    for (const [key, row] of Object.entries(table)) {
      const card = key[0] as 'J' | 'Q' | 'K';
      const h = key.slice(2);
      const player = (h.length % 2) as 0 | 1;
      const other = card === 'J' ? 'Q' : 'J';
      const state = observed(h, player, player === 0 ? `deal:${card}${other}` : `deal:${other}${card}`);
      const expected = (row.BET ?? 0) > (row.PASS ?? 0) + 1e-12 ? 'BET' : 'PASS';
      expect(cfr.act(state, { rng: createRng(1), player })).toBe(expected);
    }
    // The sampled opponent is near-Nash: a best response wins little (Nash gives −1/18 as player 0).
    const sampled = kuhnCfrOpponent({ play: 'sample' });
    const br0 = bestResponse({ game, root: KUHN_INITIAL_STATE, strategy: sampled.policy, player: 0 });
    expect(br0.value).toBeLessThan(-1 / 18 + 0.02);
  });

  it('cfr plays PASS on an exact tie of the average strategy', () => {
    // After one vanilla CFR iteration (and after none) the average strategy is exactly [0.5, 0.5] at
    // every information set: the first iteration's current strategy is uniform in every one of them.
    for (const iterations of [0, 1]) {
      const cfr = kuhnCfrOpponent({ iterations });
      const table = kuhnCfrStrategy(iterations);
      expect(Object.keys(table)).toHaveLength(12);
      for (const [key, row] of Object.entries(table)) {
        expect(row).toEqual({ PASS: 0.5, BET: 0.5 });
        const card = key[0] as 'J' | 'Q' | 'K';
        const h = key.slice(2);
        const player = (h.length % 2) as 0 | 1;
        const other = card === 'J' ? 'Q' : 'J';
        const state = observed(h, player, player === 0 ? `deal:${card}${other}` : `deal:${other}${card}`);
        for (const seed of [1, 2, 3]) expect(cfr.act(state, { rng: createRng(seed), player })).toBe('PASS');
        // The policy that best response reads is the same one-hot PASS.
        expect(cfr.policy(state, player)).toEqual([1, 0]);
      }
    }
    // The generic argmax path: ties (and differences within float noise) go to the first action, PASS.
    const tied = policyOpponent({ id: 'tied', game, policy: () => [0.5, 0.5], play: 'argmax' });
    expect(tied.act(observed('', 0), { rng: createRng(7), player: 0 })).toBe('PASS');
    expect(argmaxIndex([0.5, 0.5])).toBe(0);
    expect(argmaxIndex([0.5 - 1e-13, 0.5 + 1e-13])).toBe(0);
    expect(argmaxIndex([0.4, 0.6])).toBe(1);
  });

  it('the sampled opponent mixes with the injected rng', () => {
    const sampled = kuhnCfrOpponent({ play: 'sample' });
    const table = kuhnCfrStrategy();
    // Find a mixed information set of player 1 facing a bet with a Queen.
    expect(table['Q:b']!.BET!).toBeGreaterThan(0.1);
    const s = observed('b', 1, 'deal:JQ');
    const actions = new Set(
      Array.from({ length: 60 }, (_, i) => sampled.act(s, { rng: createRng(i), player: 1 })),
    );
    expect(actions).toEqual(new Set(['PASS', 'BET']));
  });

  it('a sampled match agrees with the exact expected value', () => {
    const conservative = kuhnArchetypePolicy('conservative');
    const aggressive = kuhnArchetypePolicy('aggressive');
    // Conservative (P0) vs aggressive (P1), by hand: J checks, P1 bets, fold (−1); Q the same (−1);
    // K bets, P1 folds J (+1) or calls with Q (+2): 1.5. Mean (−1 − 1 + 1.5) / 3 = −1/6.
    const [v0] = expectedReturns({
      game,
      root: KUHN_INITIAL_STATE,
      strategy: (s, p) => (p === 0 ? conservative(s, p) : aggressive(s, p)),
    });
    expect(v0).toBeCloseTo(-1 / 6, 12);
    const r = playMatch({
      game,
      root: KUHN_INITIAL_STATE,
      agent: kuhnArchetypeOpponent('conservative'),
      opponent: kuhnArchetypeOpponent('aggressive'),
      games: 3000,
      seat: 'first',
      rng: createRng(9),
    });
    expect(r.draws).toBe(0);
    expect(r.wins + r.losses).toBe(3000);
    expect(Math.abs(r.meanReturn - v0)).toBeLessThan(0.08);
  });
});
