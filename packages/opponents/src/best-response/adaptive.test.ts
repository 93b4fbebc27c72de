import { createRng } from '@mage-rl/core';
import {
  KUHN_INITIAL_STATE,
  type KuhnAction,
  type KuhnState,
  kuhnGame,
  kuhnPayoff,
} from '@mage-rl/envs/kuhn-poker';
import { describe, expect, it } from 'vitest';
import { KUHN_ARCHETYPES, kuhnArchetypePolicy } from '../kuhn/archetypes';
import { kuhnCfrOpponent } from '../kuhn/cfr-opponents';
import { type AdaptiveCeilingOptions, adaptiveCeiling, createAdaptiveAgent } from './adaptive';
import { bestResponse, expectedReturns } from './best-response';

/** What the Kuhn env shows between attempts: own card, betting, chips, and the showdown if `reveal`. */
const kuhnHandObservation =
  (reveal: boolean) =>
  (terminal: KuhnState, player: number): string => {
    const chips = player === 0 ? kuhnPayoff(terminal) : -kuhnPayoff(terminal);
    const seen = `${kuhnGame.informationStateKey?.(terminal, player)}|${chips}`;
    const showdown = ['pp', 'bb', 'pbb'].includes(terminal.history);
    return reveal && showdown ? `${seen}|${terminal.cards?.[1 - player]}` : seen;
  };
const archetypes = KUHN_ARCHETYPES.map((id) => ({ id, policy: kuhnArchetypePolicy(id) }));
const cfr = { id: 'cfr', policy: kuhnCfrOpponent().policy };
const kuhn = (
  player: 0 | 1,
  extra: Partial<AdaptiveCeilingOptions<KuhnState, KuhnAction>> = {},
): AdaptiveCeilingOptions<KuhnState, KuhnAction> => ({
  game: kuhnGame,
  root: KUHN_INITIAL_STATE,
  player,
  attempts: 3,
  population: archetypes,
  ...extra,
});
const brValue = (policy: (typeof archetypes)[number]['policy'], player: 0 | 1) =>
  bestResponse({ game: kuhnGame, root: KUHN_INITIAL_STATE, strategy: policy, player }).value;

describe('adaptiveCeiling (Kuhn Poker)', () => {
  it('against a known opponent earns the exact best-response value in every attempt', () => {
    for (const player of [0, 1] as const) {
      for (const opponent of [...archetypes, cfr]) {
        const result = adaptiveCeiling(kuhn(player, { population: [opponent] }));
        const br = brValue(opponent.policy, player);
        expect(result.value).toBeCloseTo(br, 12);
        for (const v of result.perOpponent[0]!.perAttempt) expect(v).toBeCloseTo(br, 12);
      }
    }
  });

  it('never beats the best response to the true opponent; plans at least as well as the myopic agent', () => {
    for (const player of [0, 1] as const) {
      for (const reveal of [false, true]) {
        const observation = kuhnHandObservation(reveal);
        const bayes = adaptiveCeiling(kuhn(player, { observation, evaluate: [...archetypes, cfr] }));
        const myopic = adaptiveCeiling(kuhn(player, { observation, planner: 'myopic' }));
        expect(bayes.value).toBeGreaterThanOrEqual(myopic.value - 1e-12);
        for (const { id, perAttempt } of bayes.perOpponent) {
          const policy = [...archetypes, cfr].find((o) => o.id === id)!.policy;
          for (const v of perAttempt) expect(v).toBeLessThanOrEqual(brValue(policy, player) + 1e-12);
        }
        // The prior-weighted mean over the population is the planner's value.
        const mean =
          bayes.perOpponent
            .slice(0, archetypes.length)
            .reduce((sum, o) => sum + o.perAttempt.reduce((a, b) => a + b, 0), 0) /
          (archetypes.length * 3);
        expect(mean).toBeCloseTo(bayes.value, 12);
      }
    }
  });

  it('learns from what it sees: more attempts and a revealed showdown never lower the value', () => {
    for (const player of [0, 1] as const) {
      const hidden = (attempts: number) =>
        adaptiveCeiling(kuhn(player, { attempts, observation: kuhnHandObservation(false) })).value;
      const shown = adaptiveCeiling(
        kuhn(player, { attempts: 3, observation: kuhnHandObservation(true) }),
      ).value;
      expect(hidden(2)).toBeGreaterThan(hidden(1));
      expect(hidden(3)).toBeGreaterThanOrEqual(hidden(2) - 1e-12);
      expect(shown).toBeGreaterThanOrEqual(hidden(3) - 1e-12);
    }
  });

  it('by default observes the information state and the return (the showdown hidden)', () => {
    for (const player of [0, 1] as const) {
      const byDefault = adaptiveCeiling(kuhn(player, { evaluate: [...archetypes, cfr] }));
      const hidden = adaptiveCeiling(
        kuhn(player, { evaluate: [...archetypes, cfr], observation: kuhnHandObservation(false) }),
      );
      expect(byDefault).toEqual(hidden);
    }
  });

  it('rejects bad options', () => {
    expect(() => adaptiveCeiling(kuhn(0, { attempts: 0 }))).toThrow(/attempts/);
    expect(() => adaptiveCeiling(kuhn(0, { population: [] }))).toThrow(/population/);
    expect(() => adaptiveCeiling(kuhn(0, { prior: [1, -1, 1] }))).toThrow(/prior/);
    expect(() => adaptiveCeiling(kuhn(0, { prior: [1, 1] }))).toThrow(/prior/);
  });
});

describe('createAdaptiveAgent (Kuhn Poker)', () => {
  /** What a card-blind note tells of a hand: the betting and the chips. */
  const noteObservation = (terminal: KuhnState, player: number) =>
    `${terminal.history}|${player === 0 ? kuhnPayoff(terminal) : -kuhnPayoff(terminal)}`;

  it('with one known opponent plays its exact best response from the first game', () => {
    for (const player of [0, 1] as const) {
      const aggressive = archetypes.find((a) => a.id === 'aggressive')!;
      const agent = createAdaptiveAgent({ ...kuhn(player), population: [aggressive], planner: 'myopic' });
      const strategy = agent.next([], 1);
      const mine = (state: KuhnState, p: number) => {
        const action = strategy.get(kuhnGame.informationStateKey?.(state, p) ?? '');
        return kuhnGame.legalActions(state).map((a) => (a === action ? 1 : 0));
      };
      const joint = (state: KuhnState, p: number) =>
        p === player ? mine(state, p) : aggressive.policy(state, p);
      const value = expectedReturns({ game: kuhnGame, root: KUHN_INITIAL_STATE, strategy: joint })[player]!;
      expect(value).toBeCloseTo(brValue(aggressive.policy, player), 12);
    }
  });

  it('learns who it plays from what its notes carry: hands played against one archetype move the belief to it', () => {
    for (const target of KUHN_ARCHETYPES) {
      const opponent = archetypes.find((a) => a.id === target)!;
      const agent = createAdaptiveAgent({ ...kuhn(0), observation: noteObservation, planner: 'myopic' });
      const rng = createRng(`belief/${target}`);
      const observations: string[] = [];
      for (let hand = 0; hand < 40; hand++) {
        const strategy = agent.next(observations, 1);
        let state: KuhnState = KUHN_INITIAL_STATE;
        while (!kuhnGame.isTerminal(state)) {
          const actor = kuhnGame.currentPlayer(state);
          if (actor < 0) {
            const outcomes = kuhnGame.chanceOutcomes?.(state) ?? [];
            state = kuhnGame.apply(state, outcomes[rng.weighted(outcomes.map((o) => o.probability))]!.action);
          } else if (actor === 0) {
            state = kuhnGame.apply(state, strategy.get(kuhnGame.informationStateKey?.(state, 0) ?? '')!);
          } else {
            const actions = kuhnGame.legalActions(state);
            state = kuhnGame.apply(state, actions[rng.weighted(opponent.policy(state, 1))]!);
          }
        }
        observations.push(noteObservation(state, 0));
      }
      const belief = agent.belief(observations, 1);
      expect(belief.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
      expect(belief[KUHN_ARCHETYPES.indexOf(target)]).toBeGreaterThan(0.9);
    }
  });
});
