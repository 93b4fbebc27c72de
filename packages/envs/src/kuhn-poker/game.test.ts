import { CHANCE_PLAYER, TERMINAL_PLAYER } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { KUHN_DEALS, type KuhnAction, type KuhnState, kuhnGame } from './game';

const play = (deal: string, history: string): KuhnState =>
  [...history].reduce<KuhnState>(
    (s, ch) => kuhnGame.apply(s, ch === 'p' ? 'PASS' : 'BET'),
    kuhnGame.apply({ cards: null, history: '' }, `deal:${deal}` as KuhnAction),
  );

// Every deal × every terminal history, payoff to player 0 in chips (written out by hand).
const PAYOFFS: Record<string, Record<string, number>> = {
  JQ: { pp: -1, bb: -2, pbb: -2, bp: 1, pbp: -1 },
  JK: { pp: -1, bb: -2, pbb: -2, bp: 1, pbp: -1 },
  QJ: { pp: 1, bb: 2, pbb: 2, bp: 1, pbp: -1 },
  QK: { pp: -1, bb: -2, pbb: -2, bp: 1, pbp: -1 },
  KJ: { pp: 1, bb: 2, pbb: 2, bp: 1, pbp: -1 },
  KQ: { pp: 1, bb: 2, pbb: 2, bp: 1, pbp: -1 },
};

describe('kuhn poker game model', () => {
  it('deals at a chance node with 6 equally likely outcomes', () => {
    const root = { cards: null, history: '' } as const;
    expect(kuhnGame.currentPlayer(root)).toBe(CHANCE_PLAYER);
    const outcomes = kuhnGame.chanceOutcomes?.(root) ?? [];
    expect(outcomes.map((o) => o.action)).toEqual(KUHN_DEALS);
    expect(outcomes.reduce((a, o) => a + o.probability, 0)).toBeCloseTo(1, 12);
    expect(kuhnGame.legalActions(root)).toEqual(KUHN_DEALS);
  });

  for (const [deal, table] of Object.entries(PAYOFFS)) {
    for (const [history, payoff] of Object.entries(table)) {
      it(`deal ${deal}, history ${history}: player 0 gets ${payoff}`, () => {
        const s = play(deal, history);
        expect(kuhnGame.isTerminal(s)).toBe(true);
        expect(kuhnGame.currentPlayer(s)).toBe(TERMINAL_PLAYER);
        expect(kuhnGame.legalActions(s)).toEqual([]);
        expect(kuhnGame.returns(s)).toEqual([payoff, -payoff]);
      });
    }
  }

  it('non-terminal histories alternate players 0, 1, 0 with PASS and BET legal', () => {
    for (const [h, p] of [
      ['', 0],
      ['p', 1],
      ['b', 1],
      ['pb', 0],
    ] as const) {
      const s = play('KQ', h);
      expect(kuhnGame.isTerminal(s)).toBe(false);
      expect(kuhnGame.currentPlayer(s)).toBe(p);
      expect(kuhnGame.legalActions(s)).toEqual(['PASS', 'BET']);
    }
  });

  it('information state = own card + history; observe hides the other card', () => {
    const s = play('QK', 'pb');
    expect(kuhnGame.informationStateKey?.(s, 0)).toBe('Q:pb');
    expect(kuhnGame.informationStateKey?.(s, 1)).toBe('K:pb');
    expect(kuhnGame.observe?.(s, 0)).toEqual({ cards: ['Q', null], history: 'pb' });
    expect(kuhnGame.observe?.(s, 1)).toEqual({ cards: [null, 'K'], history: 'pb' });
    expect(kuhnGame.stateKey(s)).toBe('QK:pb');
    // an observed state still knows whose turn it is and what is legal
    const seen = kuhnGame.observe?.(s, 0) as KuhnState;
    expect(kuhnGame.currentPlayer(seen)).toBe(0);
    expect(kuhnGame.informationStateKey?.(seen, 0)).toBe('Q:pb');
  });

  it('rejects actions out of place', () => {
    expect(() => kuhnGame.apply({ cards: null, history: '' }, 'BET')).toThrow(/deal/);
    expect(() => kuhnGame.apply(play('JQ', 'pp'), 'BET')).toThrow(/terminal/);
    expect(() => kuhnGame.apply(play('JQ', ''), 'deal:KQ')).toThrow(/illegal/);
  });
});
