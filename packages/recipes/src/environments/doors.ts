/**
 * Doors as the trainer knows it: a single-agent bandit (no opponents), the hidden-target training
 * defaults, evaluation on 3 doors in-domain and 4 doors out-of-domain, the teacher (note-blind random
 * doors; never an empty door twice when it reads its notes) and the words of its compact text.
 */

import type { EnvDefinitionV1 } from '@mage-rl/core';
import { hiddenTargetLevels } from '@mage-rl/envs';
import {
  createDoors,
  DOORS_ENV_ID,
  DOORS_MAX,
  DOORS_MIN,
  DOORS_RESULT_WORDS,
  type DoorsAction,
  type DoorsOptions,
  type DoorsState,
  doorsRules,
} from '@mage-rl/envs/doors';
import type { TrainConfigInput } from '../presets/schema';
import { doorsTeacher } from '../teachers/doors-teacher';
import { HIDDEN_TARGET_DEFAULTS, hiddenTargetRecipe } from './hidden-target-defaults';
import { textWords } from './words';

/** Results, door words, outcome labels and the compact rules of every door count. */
function compactWords(): string[] {
  const rules: string[] = [];
  for (let doors = DOORS_MIN; doors <= DOORS_MAX; doors++) rules.push(doorsRules(doors, 'compact'));
  return textWords(['doors', 'door', ...DOORS_RESULT_WORDS, 'win', 'loss'], rules);
}

export const doorsEnvDefinition: EnvDefinitionV1<DoorsState, DoorsAction> = {
  specificationVersion: 'v1',
  id: DOORS_ENV_ID,
  description: 'Doors: a prize behind one of N doors, the same door every attempt (single-agent bandit)',
  create: (options) => createDoors(options as DoorsOptions),
  defaults: {
    env: { options: {} },
    ...HIDDEN_TARGET_DEFAULTS,
    eval: {
      inDomain: [],
      outOfDomain: [],
      envOptions: {},
      // Four doors are the out-of-domain test (Bayes reader: 1/4, 1/2, 3/4 over three attempts).
      outOfDomainEnvOptions: [{ doors: 4 }],
    },
  } satisfies TrainConfigInput,
  // The reading budget as it is (the README's Doors row: docs/results/adaptation-from-scratch).
  recipe: hiddenTargetRecipe(),
  warmStart: { teacher: doorsTeacher, words: compactWords() },
  adaptationCeiling: (options, attempts) =>
    hiddenTargetLevels(createDoors(options as DoorsOptions), attempts)?.bayes ?? [],
  labels: { name: 'Doors', success: 'prize found' },
};
