/**
 * Sokoban as the trainer knows it: a single-agent env (no opponents), its defaults (γ_traj 0.9, invalid
 * penalty 0.5, the agent always first), evaluation on its own rooms in-domain and on 1-box and 3-box rooms
 * out-of-domain, the solver teacher and the words of its compact text.
 */

import type { EnvDefinitionV1 } from '@mage-rl/core';
import {
  createSokoban,
  SOKOBAN_ENV_ID,
  SOKOBAN_MOVES,
  SOKOBAN_SYMBOLS,
  type SokobanAction,
  type SokobanOptions,
  type SokobanState,
  sokobanRules,
} from '@mage-rl/envs/sokoban';
import type { TrainConfigInput } from '../presets/schema';
import { sokobanTeacher } from '../teachers/sokoban-teacher';
import { textWords } from './words';

/** Moves, room symbols, result words, outcome labels and the compact rules of every moves-per-turn value. */
function compactWords(): string[] {
  const rules: string[] = [];
  for (let moves = 1; moves <= 20; moves++) rules.push(sokobanRules('compact', 7, moves));
  return textWords(
    ['room', ...SOKOBAN_MOVES, ...Object.values(SOKOBAN_SYMBOLS), 'solved', 'stuck', 'deadlock', 'truncated'],
    rules,
  );
}

export const sokobanEnvDefinition: EnvDefinitionV1<SokobanState, SokobanAction> = {
  specificationVersion: 'v1',
  id: SOKOBAN_ENV_ID,
  description: 'Sokoban rooms made by reverse play (single agent)',
  create: (options) => createSokoban(options as SokobanOptions),
  defaults: {
    env: { options: {} },
    rollout: { seats: 'first' },
    population: { preset: 'none', fixedOpponent: null, mode: 'sampled' },
    advantage: { trajGamma: 0.9, invalidPenalty: 0.5, lengthPenaltyCoef: 1 },
    eval: {
      inDomain: [],
      outOfDomain: [],
      envOptions: {},
      // 1-box and 3-box rooms are the out-of-domain tests.
      outOfDomainEnvOptions: [{ boxes: 1 }, { boxes: 3 }],
    },
  } satisfies TrainConfigInput,
  warmStart: { teacher: sokobanTeacher, words: compactWords() },
  labels: { name: 'Sokoban', success: 'room solved' },
};
