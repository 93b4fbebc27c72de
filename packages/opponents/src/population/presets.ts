/**
 * Population presets: the training and out-of-domain opponent mixes of Tic-Tac-Toe, Kuhn Poker and
 * Rock-Paper-Scissors, on top of `createPopulation` from `@mage-rl/spec`.
 */

import { createPopulation, type PopulationMode, type PopulationV1, UnknownIdError } from '@mage-rl/spec';
import { RPS_OOD_BOTS, RPS_TRAINING_BOTS } from '../rps/bots';
import { PATTERN_NAMES } from '../tictactoe/patterns';

export type PopulationEnvId = 'tictactoe' | 'kuhn-poker' | 'rps';

export interface PopulationPresetOptions {
  readonly mode?: PopulationMode;
  readonly grouping?: 'per-opponent' | 'mixed';
}

const TICTACTOE_PATTERNS = PATTERN_NAMES.map((n) => `pattern-${n}`);

/**
 * Entries of every preset. Tic-Tac-Toe `balanced`: half `mcts-100`, half the six patterns and `random`
 * (1/14 each); `mcts`: `mcts-100` alone (with the env option `replies: 'board'`, a frozen opponent). Kuhn
 * `balanced`: conservative 0.3, aggressive 0.3, intermediate 0.4. Rock-Paper-Scissors
 * `balanced`: the 18 bots of the training families, equally. `ood`: the out-of-domain opponents
 * (`mcts-1000`; `cfr`; the 12 bots of the out-of-domain families, equally).
 */
export const POPULATION_PRESETS: Readonly<
  Record<PopulationEnvId, Readonly<Record<string, readonly { id: string; weight: number }[]>>>
> = {
  tictactoe: {
    balanced: [
      { id: 'mcts-100', weight: 0.5 },
      ...[...TICTACTOE_PATTERNS, 'random'].map((id) => ({ id, weight: 0.5 / 7 })),
    ],
    patterns: [...TICTACTOE_PATTERNS, 'random'].map((id) => ({ id, weight: 1 })),
    mcts: [{ id: 'mcts-100', weight: 1 }],
    ood: [{ id: 'mcts-1000', weight: 1 }],
  },
  'kuhn-poker': {
    balanced: [
      { id: 'conservative', weight: 0.3 },
      { id: 'aggressive', weight: 0.3 },
      { id: 'intermediate', weight: 0.4 },
    ],
    ood: [{ id: 'cfr', weight: 1 }],
  },
  rps: {
    balanced: RPS_TRAINING_BOTS.map((b) => ({ id: b.id, weight: 1 })),
    ood: RPS_OOD_BOTS.map((b) => ({ id: b.id, weight: 1 })),
  },
};

/** The preset `name` of `envId` (`balanced`, `ood`; Tic-Tac-Toe also `patterns` and `mcts`). */
export function populationPreset(
  envId: string,
  name: string,
  options: PopulationPresetOptions = {},
): PopulationV1 {
  const byEnv = POPULATION_PRESETS[envId as PopulationEnvId];
  if (!byEnv) throw new UnknownIdError('env', envId, Object.keys(POPULATION_PRESETS));
  const entries = byEnv[name];
  if (!entries) throw new UnknownIdError('population', name, Object.keys(byEnv));
  return createPopulation(`${envId}-${name}`, entries, options);
}
