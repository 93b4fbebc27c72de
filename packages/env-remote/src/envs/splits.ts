/** Task-index splits of the remote envs: training, in-domain and out-of-domain evaluation. */

import { ConfigError, type JsonObject } from '@mage-rl/core';

export interface RemoteSplit {
  readonly split: 'train' | 'in-domain' | 'out-of-domain';
  readonly trainTasks: readonly [number, number];
  readonly inDomainTasks: readonly [number, number];
  readonly outOfDomainTasks: readonly [number, number] | null;
}

/** The index range of the options' split; a `ConfigError` when the out-of-domain range is unset. */
export function splitRange(envId: string, o: RemoteSplit, whyNoOod: string): readonly [number, number] {
  if (o.split === 'train') return o.trainTasks;
  if (o.split === 'in-domain') return o.inDomainTasks;
  if (o.outOfDomainTasks === null) {
    throw new ConfigError(
      `Env '${envId}' has no out-of-domain tasks (${whyNoOod}); set ${envId}.outOfDomainTasks to [start, end] task indices of a server that has them.`,
      { path: `${envId}.outOfDomainTasks` },
    );
  }
  return o.outOfDomainTasks;
}

/** The options as a JSON object (ranges as plain arrays). */
export function jsonOptions<O extends RemoteSplit & Record<string, unknown>>(o: O): JsonObject {
  const { trainTasks, inDomainTasks, outOfDomainTasks, ...rest } = o;
  const json: JsonObject = {
    ...(rest as JsonObject),
    trainTasks: [...trainTasks],
    inDomainTasks: [...inDomainTasks],
    outOfDomainTasks: outOfDomainTasks ? [...outOfDomainTasks] : null,
  };
  return json;
}
