/**
 * Kuhn Poker as the trainer knows it: its defaults (invalid penalty 2, γ_traj 0.6, KL 0.1, mixed seats,
 * showdown cards revealed in training and hidden in evaluation), the archetype and CFR opponents and
 * their populations, evaluation against the archetypes in-domain and CFR out-of-domain, the CFR+ teacher,
 * the words of its compact text, and the game `mage solve kuhn` solves.
 */

import type { EnvDefinitionV1 } from '@mage-rl/core';
import {
  createKuhnPoker,
  KUHN_ENV_ID,
  KUHN_INITIAL_STATE,
  type KuhnAction,
  type KuhnPokerOptions,
  type KuhnState,
  kuhnGame,
  kuhnPokerOptionsSchema,
  kuhnRules,
} from '@mage-rl/envs/kuhn-poker';
import { kuhnOpponentRegistry, POPULATION_PRESETS } from '@mage-rl/opponents';
import { kuhnTeacher } from '../teachers/kuhn-teacher';
import { twoPlayerDefaults } from './two-player-defaults';
import { textWords } from './words';

const populations = POPULATION_PRESETS['kuhn-poker'];

/** Headings, cards, actions, chip results, outcome labels and the compact rules of both seats. */
function compactWords(): string[] {
  const words = ['card', 'history', 'you', 'opp', 'PASS', 'BET', 'J', 'Q', 'K', '?', 'showdown'];
  const results = ['+1', '-1', '+2', '-2', 'win', 'loss', 'truncated'];
  return textWords(
    [...words, ...results],
    [0, 1].map((agent) => kuhnRules('compact', 6, 5, agent)),
  );
}

type Strategy = Readonly<Record<string, Readonly<Record<string, number>>>>;

type StrategyRow = [key: string, player: number, card: string, history: string, pass: number, bet: number];

/** Rows `[key, player, card, history, P(PASS), P(BET)]` of a strategy, ordered by player, history, card. */
export function kuhnStrategyRows(strategy: Strategy): (string | number)[][] {
  const cardOrder = 'JQK';
  return Object.entries(strategy)
    .map(([key, row]): StrategyRow => {
      const [card = '', history = ''] = key.split(':');
      return [key, history.length % 2, card, history || '-', row.PASS ?? 0, row.BET ?? 0];
    })
    .sort(
      (a, b) => a[1] - b[1] || a[3].length - b[3].length || cardOrder.indexOf(a[2]) - cardOrder.indexOf(b[2]),
    );
}

export const kuhnPokerEnvDefinition: EnvDefinitionV1<KuhnState, KuhnAction> = {
  specificationVersion: 'v1',
  id: KUHN_ENV_ID,
  description: 'Kuhn Poker (3 cards, one betting round) against archetype and CFR opponents',
  create: (options) => createKuhnPoker(options as KuhnPokerOptions),
  // Showdown cards revealed in training, hidden in evaluation. A hand stopped by the turn limit scores as
  // a fold: scored 0, stalling with invalid answers beat folding, and trained policies learned it (a
  // J facing a bet stalled in 92% of hands), which no exact tool (best response, adaptation ceiling) models.
  defaults: twoPlayerDefaults(populations, {
    envOptions: { revealShowdown: true, truncation: 'loss' },
    advantage: { trajGamma: 0.6, invalidPenalty: 2, lengthPenaltyCoef: 2 },
    evalEnvOptions: { revealShowdown: false },
  }),
  opponents: {
    ...kuhnOpponentRegistry(),
    populations,
    match: {
      model: kuhnGame,
      root: KUHN_INITIAL_STATE,
      solveNames: ['kuhn'],
      value: { value: -1 / 18, text: '−1/18' },
      rewardPerReturn: (options) => kuhnPokerOptionsSchema.parse(options).chipReward,
      freshGamePerAttempt: (options) => kuhnPokerOptionsSchema.parse(options).mode === 'new-deal',
      strategyTable: (strategy) => ({
        columns: ['info state', 'player', 'card', 'history', 'P(PASS)', 'P(BET)'],
        rows: kuhnStrategyRows(strategy),
      }),
    },
  },
  warmStart: { teacher: kuhnTeacher, words: compactWords() },
  labels: { name: 'Kuhn Poker', success: 'a hand won (payoff > 0)', returnUnit: 'chips per hand' },
};
