import { PATTERN_NAMES } from '@mage-rl/opponents';
import { envDefinition } from '@mage-rl/recipes';
import { describe, expect, it } from 'vitest';
import { ceilingShare, identifiableOpponents, referenceValues } from './reference-values';

describe('referenceValues', () => {
  it('Kuhn Poker: exact best responses to the archetypes, the equilibrium between 0 and them, reward per chip', () => {
    const refs = referenceValues(
      envDefinition('kuhn-poker'),
      ['aggressive', 'conservative', 'intermediate', 'cfr'],
      { chipReward: 4 },
    );
    expect(refs?.unit).toBe('chips per hand');
    expect(refs?.rewardPerReturn).toBe(4);
    const by = refs?.byOpponent ?? {};
    expect(by.aggressive?.bestResponse).toBeCloseTo(1 / 3, 9);
    expect(by.conservative?.bestResponse).toBeCloseTo(0.25, 9);
    expect(by.intermediate?.bestResponse).toBeCloseTo(0.25, 9);
    for (const ref of Object.values(by)) {
      // With seats mixed the game is worth 0; an equilibrium loses nothing and cannot beat the best response.
      expect(ref.equilibrium).toBeGreaterThan(-1e-3);
      expect(ref.equilibrium).toBeLessThanOrEqual(ref.bestResponse + 1e-9);
    }
    // `cfr` plays the equilibrium's most likely action: a pure strategy, exploitable by 1/6 chip per hand.
    expect(by.cfr?.bestResponse).toBeCloseTo(1 / 6, 9);
  });

  it('Kuhn Poker new-deal: the adaptation ceiling per attempt, per opponent and under the population', () => {
    const population = [
      { id: 'conservative', weight: 0.3 },
      { id: 'aggressive', weight: 0.3 },
      { id: 'intermediate', weight: 0.4 },
    ];
    const ids = ['aggressive', 'conservative', 'intermediate', 'cfr'];
    const refs = referenceValues(
      envDefinition('kuhn-poker'),
      ids,
      { mode: 'new-deal' },
      { attempts: 3, population },
    );
    // The numbers of `mage adaptation-ceiling kuhn` (exact): only against the aggressive player can it rise.
    const aggressive = refs?.byOpponent.aggressive?.ceiling ?? [];
    expect(aggressive.map((x) => +x.toFixed(3))).toEqual([-0.167, 0.333, 0.333]);
    expect(refs?.byOpponent.conservative?.ceiling?.map((x) => +x.toFixed(3))).toEqual([0.25, 0.167, 0.222]);
    // Under the prior: the members' ceilings weighted by the prior; never above the best response's.
    const under = refs?.ceiling?.perAttempt ?? [];
    const by = refs?.byOpponent ?? {};
    under.forEach((x, k) => {
      const weighted = population.reduce((a, e) => a + e.weight * (by[e.id]?.ceiling?.[k] ?? Number.NaN), 0);
      expect(x).toBeCloseTo(weighted, 12);
    });
    expect(refs?.byOpponent.cfr?.ceiling).toHaveLength(3);
    // Replaying one deal in every attempt is not the ceiling's setting.
    const same = referenceValues(
      envDefinition('kuhn-poker'),
      ids,
      { mode: 'same-deal' },
      { attempts: 3, population },
    );
    expect(same?.ceiling).toBeUndefined();
    expect(same?.byOpponent.aggressive?.ceiling).toBeUndefined();
  });

  it('is undefined for an env without a solvable game', () => {
    expect(referenceValues(envDefinition('tictactoe'), ['random'], {})).toBeUndefined();
  });
});

describe('identifiableOpponents', () => {
  it('Tic-Tac-Toe: the pattern players (deterministic, beaten from either seat), not random, MCTS or minimax', () => {
    const patterns = PATTERN_NAMES.map((n) => `pattern-${n}`);
    const ids = [...patterns, 'random', 'mcts-100', 'minimax'];
    expect(identifiableOpponents(envDefinition('tictactoe'), ids)).toEqual(patterns);
  });

  it('Kuhn Poker: none (the deal is chance), nor an env without a match game', () => {
    expect(identifiableOpponents(envDefinition('kuhn-poker'), ['aggressive', 'cfr'])).toEqual([]);
    expect(identifiableOpponents(envDefinition('sokoban'), ['none'])).toEqual([]);
  });
});

describe('ceilingShare', () => {
  it('is the rounded share of a positive ceiling, with a true minus below zero', () => {
    expect(ceilingShare(0.15, 0.2)).toBe('75%');
    expect(ceilingShare(-0.023, 0.224)).toBe('−10%');
    expect(ceilingShare(0.05, 0)).toBeUndefined();
  });
});
