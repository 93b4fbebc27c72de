import { envDefinition } from '@mage-rl/recipes';
import { describe, expect, it } from 'vitest';
import { referenceValues } from './reference-values';

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

  it('is undefined for an env without a solvable game', () => {
    expect(referenceValues(envDefinition('tictactoe'), ['random'], {})).toBeUndefined();
  });
});
