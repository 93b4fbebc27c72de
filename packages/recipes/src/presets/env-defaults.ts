/**
 * Per-env defaults (SPEC §5, §3): γ_traj 0.9 for Sokoban, invalid penalty 2.0 for Kuhn, KL 0.1 for
 * Tic-Tac-Toe and Kuhn, length-penalty coefficients, seats, populations and the in-domain and
 * out-of-domain evaluation opponents.
 */

import { POPULATION_PRESETS } from '@mage-rl/opponents';
import type { RecipeEnvId } from '../wiring';
import type { TrainConfigInput } from './schema';

const ids = (envId: 'tictactoe' | 'kuhn-poker', preset: string): string[] =>
  (POPULATION_PRESETS[envId][preset] ?? []).map((e) => e.id);

export const ENV_DEFAULTS: Readonly<Record<RecipeEnvId, TrainConfigInput>> = {
  tictactoe: {
    // A game stopped by the turn limit scores as a loss, so stalling with invalid moves never pays.
    env: { options: { truncation: 'loss' } },
    rollout: { seats: { mixed: 0.5 } },
    population: { preset: 'balanced', fixedOpponent: null, mode: 'sampled' },
    advantage: { trajGamma: 0.6, invalidPenalty: 0.5, lengthPenaltyCoef: 2 },
    ppo: { klCoef: 0.1 },
    eval: {
      inDomain: ids('tictactoe', 'balanced'),
      outOfDomain: ids('tictactoe', 'ood'),
      envOptions: {},
      outOfDomainEnvOptions: [],
    },
  },
  'kuhn-poker': {
    env: { options: { revealShowdown: true } },
    rollout: { seats: { mixed: 0.5 } },
    population: { preset: 'balanced', fixedOpponent: null, mode: 'sampled' },
    advantage: { trajGamma: 0.6, invalidPenalty: 2, lengthPenaltyCoef: 2 },
    ppo: { klCoef: 0.1 },
    eval: {
      inDomain: ids('kuhn-poker', 'balanced'),
      outOfDomain: ids('kuhn-poker', 'ood'),
      // SPEC §2.2: showdown cards revealed in training, hidden in evaluation.
      envOptions: { revealShowdown: false },
      outOfDomainEnvOptions: [],
    },
  },
  sokoban: {
    env: { options: {} },
    rollout: { seats: 'first' },
    population: { preset: 'none', fixedOpponent: null, mode: 'sampled' },
    advantage: { trajGamma: 0.9, invalidPenalty: 0.5, lengthPenaltyCoef: 1 },
    eval: {
      inDomain: [],
      outOfDomain: [],
      envOptions: {},
      // SPEC §2.3: 1-box and 3-box rooms are the out-of-domain tests.
      outOfDomainEnvOptions: [{ boxes: 1 }, { boxes: 3 }],
    },
  },
};
