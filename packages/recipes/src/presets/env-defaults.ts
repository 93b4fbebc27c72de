/**
 * Per-env training defaults: each env's definition carries its own (`../environments`); this module reads
 * them from the registry, and adds the generic layer every env starts from.
 */

import type { EnvDefinitionV1 } from '@mage-rl/core';
import { envDefinition, FIRST_PARTY_ENV_DEFINITIONS } from '../environments/registry';
import type { TrainConfigInput } from './schema';

/** The defaults of the first-party envs, by id (each env's `defaults`). */
export const ENV_DEFAULTS: Readonly<Record<string, TrainConfigInput>> = Object.fromEntries(
  FIRST_PARTY_ENV_DEFINITIONS.map((d) => [d.id, d.defaults as TrainConfigInput]),
);

/**
 * What an env gets before its own defaults: no options; a single-agent env plays first with no
 * population and no evaluation opponents; a two-player env plays either seat, trains against its first
 * population and is evaluated against it. The first-party envs set all of these themselves.
 */
export function envBaseLayer(definition: EnvDefinitionV1): TrainConfigInput {
  const populations = definition.opponents?.populations ?? {};
  const first = Object.keys(populations)[0];
  const twoPlayer = definition.opponents !== undefined && first !== undefined;
  return {
    env: { options: {} },
    rollout: { seats: twoPlayer ? { mixed: 0.5 } : 'first' },
    population: { preset: twoPlayer ? first : 'none', fixedOpponent: null, mode: 'sampled' },
    eval: {
      inDomain: twoPlayer ? (populations[first] ?? []).map((e) => e.id) : [],
      outOfDomain: [],
      envOptions: {},
      outOfDomainEnvOptions: [],
    },
  };
}

/** The generic layer and the defaults of env `id` (from the registry). */
export function envDefaultsOf(id: string): readonly TrainConfigInput[] {
  const definition = envDefinition(id);
  return [envBaseLayer(definition), definition.defaults as TrainConfigInput];
}
