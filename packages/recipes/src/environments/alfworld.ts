/**
 * ALFWorld as the trainer knows it: a single-agent env on an AgentGym ALFWorld server (`--env-url`),
 * trained on the server's train games and evaluated on its in-domain test games. It has no warm-start
 * teacher (no local rules engine to script one): train it from a model of your own (`--model`).
 */

import type { EnvDefinitionV1 } from '@mage-rl/core';
import { ALFWORLD_ENV_ID, type AlfWorldState, createAlfWorld } from '@mage-rl/env-remote';
import type { TrainConfigInput } from '../presets/schema';

export const alfWorldEnvDefinition: EnvDefinitionV1<AlfWorldState, string> = {
  specificationVersion: 'v1',
  id: ALFWORLD_ENV_ID,
  description: 'ALFWorld household tasks on an AgentGym server (--env-url; single agent)',
  create: (options) => createAlfWorld(options),
  defaults: {
    env: { options: { split: 'train' } },
    // The play prompt shows the last 15 steps of the attempt (the paper's setting for this env).
    rollout: { seats: 'first', historyWindow: 15 },
    population: { preset: 'none', fixedOpponent: null, mode: 'sampled' },
    eval: {
      inDomain: [],
      outOfDomain: [],
      envOptions: { split: 'in-domain' },
      // AgentGym's server has no unseen-scene games; add { split: 'out-of-domain', outOfDomainTasks: […] } for one that has.
      outOfDomainEnvOptions: [],
    },
  } satisfies TrainConfigInput,
  labels: { name: 'ALFWorld', success: 'task won' },
};
