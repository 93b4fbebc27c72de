/**
 * The one registry of environments: the first-party definitions (Tic-Tac-Toe, Kuhn Poker, Sokoban,
 * Treasure, Doors and Rock-Paper-Scissors in process; ALFWorld, WebShop and any OpenEnv env on their servers) and
 * the definitions of env packages added explicitly for this process (`addEnvDefinition`, which the CLI
 * calls for `--env-package` / `env.package`). Config resolution, wiring, evaluation suites, teachers,
 * the vocabulary and the CLI all read it; importing a module never adds anything.
 */

import { ConfigError, type EnvDefinitionV1, UnknownIdError } from '@mage-rl/core';
import { alfWorldEnvDefinition } from './alfworld';
import { checkEnvDefinition } from './check-definition';
import { doorsEnvDefinition } from './doors';
import { kuhnPokerEnvDefinition } from './kuhn-poker';
import { openEnvEnvDefinition } from './openenv';
import { rpsEnvDefinition } from './rps';
import { sokobanEnvDefinition } from './sokoban';
import { ticTacToeEnvDefinition } from './tictactoe';
import { ticTacToeFrozenEnvDefinition } from './tictactoe-frozen';
import { treasureEnvDefinition } from './treasure';
import { webShopEnvDefinition } from './webshop';

/** The envs that ship with mage-rl, in the order help texts and error messages list them. */
export const FIRST_PARTY_ENV_DEFINITIONS: readonly EnvDefinitionV1[] = [
  ticTacToeEnvDefinition,
  kuhnPokerEnvDefinition,
  sokobanEnvDefinition,
  treasureEnvDefinition,
  doorsEnvDefinition,
  rpsEnvDefinition,
  ticTacToeFrozenEnvDefinition,
  alfWorldEnvDefinition,
  webShopEnvDefinition,
  openEnvEnvDefinition,
];

/** First-party envs that live on a server of their own: `url` is one of their options. */
export const REMOTE_ENV_IDS: readonly string[] = [
  alfWorldEnvDefinition.id,
  webShopEnvDefinition.id,
  openEnvEnvDefinition.id,
];

/** A snapshot of the registry. */
export interface EnvRegistry {
  /** First-party ids first, then added ones in the order they were added. */
  readonly ids: readonly string[];
  readonly definitions: readonly EnvDefinitionV1[];
  has(id: string): boolean;
  /** The definition of `id`; `UnknownIdError` listing the known ids otherwise. */
  get(id: string): EnvDefinitionV1;
  /** The package an env was added from (as it was named); `undefined` for first-party envs and those added in code. */
  packageOf(id: string): string | undefined;
}

const firstParty = new Map(FIRST_PARTY_ENV_DEFINITIONS.map((d) => [d.id, d]));
const added = new Map<
  string,
  { readonly definition: EnvDefinitionV1; readonly package: string | undefined }
>();

/** The registry as it is now: first-party envs plus every env package added so far. */
export function envRegistry(): EnvRegistry {
  const definitions = [...FIRST_PARTY_ENV_DEFINITIONS, ...[...added.values()].map((e) => e.definition)];
  const ids = definitions.map((d) => d.id);
  const find = (id: string) => firstParty.get(id) ?? added.get(id)?.definition;
  return {
    ids,
    definitions,
    has: (id) => find(id) !== undefined,
    get(id) {
      const definition = find(id);
      if (!definition) throw new UnknownIdError('env', id, ids);
      return definition;
    },
    packageOf: (id) => added.get(id)?.package,
  };
}

/** The definition of env `id`; `UnknownIdError` listing the known ids otherwise. */
export function envDefinition(id: string): EnvDefinitionV1 {
  return envRegistry().get(id);
}

/**
 * Checks `value` (what an env package exports, or a definition handed over in code: no `package`) and
 * adds it to the registry of this process, recording the package it came from. Adding an env again from
 * the same source replaces its definition; an id that is built in or already added from another source
 * is refused (`ConfigError`).
 */
export function addEnvDefinition(
  value: unknown,
  source: { readonly package?: string } = {},
): EnvDefinitionV1 {
  const definition = checkEnvDefinition(value, source.package);
  const from = (p: string | undefined) => (p === undefined ? 'code' : `package '${p}'`);
  const where = { path: source.package === undefined ? 'env' : 'env.package' };
  if (firstParty.has(definition.id)) {
    throw new ConfigError(
      `Env ${from(source.package)} defines env '${definition.id}', which is built in; give its env another id.`,
      { ...where, context: { package: source.package ?? null, id: definition.id } },
    );
  }
  const before = added.get(definition.id);
  if (before && before.package !== source.package) {
    throw new ConfigError(
      `Env ${from(source.package)} defines env '${definition.id}', which ${from(before.package)} already added.`,
      {
        ...where,
        context: { package: source.package ?? null, id: definition.id, other: before.package ?? null },
      },
    );
  }
  added.set(definition.id, { definition, package: source.package });
  return definition;
}
