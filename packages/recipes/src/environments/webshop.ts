/**
 * WebShop as the trainer knows it: a single-agent env on an AgentGym WebShop server (`--env-url`),
 * trained on goals 500 and up and evaluated on goals 0–499. It has no warm-start teacher: train it from
 * a model of your own (`--model`).
 */

import type { EnvDefinitionV1 } from '@mage-rl/core';
import { createWebShop, WEBSHOP_ENV_ID, type WebShopState } from '@mage-rl/env-remote';
import type { TrainConfigInput } from '../presets/schema';

export const webShopEnvDefinition: EnvDefinitionV1<WebShopState, string> = {
  specificationVersion: 'v1',
  id: WEBSHOP_ENV_ID,
  description: 'WebShop shopping goals on an AgentGym server (--env-url; single agent)',
  create: (options) => createWebShop(options),
  defaults: {
    env: { options: { split: 'train' } },
    // The play prompt shows the last 20 steps of the attempt (the paper's setting for this env).
    rollout: { seats: 'first', historyWindow: 20 },
    population: { preset: 'none', fixedOpponent: null, mode: 'sampled' },
    eval: { inDomain: [], outOfDomain: [], envOptions: { split: 'in-domain' }, outOfDomainEnvOptions: [] },
  } satisfies TrainConfigInput,
  labels: { name: 'WebShop', success: 'exact purchase' },
};
