/**
 * What the envs on a server of their own (AgentGym's ALFWorld and WebShop, any OpenEnv server) share as
 * the trainer knows them: a single-agent env on a server (`--env-url`), trained on the server's `train`
 * split and evaluated on its in-domain split, the play prompt showing the last `historyWindow` steps of
 * the attempt (the paper's setting per env; the memory's default when absent). They have no warm-start
 * teacher (no local rules engine to script one): train them from a model of your own (`--model`).
 */

import type { EnvDefinitionV1 } from '@mage-rl/core';
import type { TrainConfigInput } from '../presets/schema';

export interface ServerEnv<S> {
  readonly id: string;
  readonly description: string;
  readonly create: EnvDefinitionV1<S, string>['create'];
  readonly historyWindow?: number;
  readonly labels: NonNullable<EnvDefinitionV1<S, string>['labels']>;
}

export function serverEnvDefinition<S>(env: ServerEnv<S>): EnvDefinitionV1<S, string> {
  return {
    specificationVersion: 'v1',
    id: env.id,
    description: env.description,
    create: env.create,
    defaults: {
      env: { options: { split: 'train' } },
      rollout: {
        seats: 'first',
        ...(env.historyWindow === undefined ? {} : { historyWindow: env.historyWindow }),
      },
      population: { preset: 'none', fixedOpponent: null, mode: 'sampled' },
      // No server here has unseen-scene tasks by default; add { split: 'out-of-domain', outOfDomainTasks: […] }
      // for one that has.
      eval: { inDomain: [], outOfDomain: [], envOptions: { split: 'in-domain' }, outOfDomainEnvOptions: [] },
    } satisfies TrainConfigInput,
    labels: env.labels,
  };
}
