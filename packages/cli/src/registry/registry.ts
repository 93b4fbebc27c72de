/**
 * What the game commands (`mage match`, `mage solve`, `mage best-response`) need from the env registry
 * of `@mage-rl/recipes`: envs, their opponents and their games by id. There is no second list of envs
 * here; unknown ids fail with `UnknownIdError`, whose message lists the known ids.
 */

import {
  type EnvDefinitionV1,
  type EnvV1,
  type GameModelV1,
  type OpponentV1,
  UnknownIdError,
} from '@mage-rl/core';
import { createEnvById, envRegistry, FIRST_PARTY_ENV_DEFINITIONS } from '@mage-rl/recipes';

type AnyEnv = EnvV1<unknown, unknown>;

/** Factories of the first-party envs by id; each takes the env's own options object. */
export const ENV_FACTORIES: Readonly<Record<string, (options?: Record<string, unknown>) => AnyEnv>> =
  Object.fromEntries(FIRST_PARTY_ENV_DEFINITIONS.map((d) => [d.id, (options = {}) => d.create(options)]));

/** Ids of the first-party envs. */
export const ENV_IDS: readonly string[] = FIRST_PARTY_ENV_DEFINITIONS.map((d) => d.id);

/**
 * Env `id` of the registry (first-party or added from an env package) with `options`; with a `url`
 * option an in-process env is played on that `mage env-serve` server (see `createEnvById`).
 */
export function createEnv(id: string, options?: Record<string, unknown>): AnyEnv {
  return createEnvById(id, options ?? {});
}

/** A two-player game the CLI can play scripted matches on: its model and the initial state. */
export interface MatchGame {
  readonly envId: string;
  readonly game: GameModelV1<unknown, unknown>;
  readonly root: unknown;
  readonly definition: EnvDefinitionV1;
}

const withMatch = (): EnvDefinitionV1[] => envRegistry().definitions.filter((d) => d.opponents?.match);

/** First-party env ids that have opponents (and so matches). */
export const OPPONENT_ENV_IDS: readonly string[] = FIRST_PARTY_ENV_DEFINITIONS.filter(
  (d) => d.opponents?.match,
).map((d) => d.id);

/** The env `envId` if it has opponents and a game to match them on. */
function matchDefinition(envId: string): EnvDefinitionV1 {
  const registry = envRegistry();
  const definition = registry.has(envId) ? registry.get(envId) : undefined;
  if (!definition?.opponents?.match) {
    throw new UnknownIdError(
      'env',
      envId,
      withMatch().map((d) => d.id),
    );
  }
  return definition;
}

export function matchGame(envId: string): MatchGame {
  const definition = matchDefinition(envId);
  const match = definition.opponents?.match as NonNullable<
    NonNullable<EnvDefinitionV1['opponents']>['match']
  >;
  return { envId: definition.id, game: match.model, root: match.root, definition };
}

/** Known opponent ids of an env (parametric ones as patterns, e.g. `mcts-<N>`). */
export function knownOpponentIds(envId: string): readonly string[] {
  const opponents = matchDefinition(envId).opponents;
  const patterns = opponents?.patterns ?? [];
  return [
    ...patterns,
    ...(opponents?.ids ?? []).filter((id) => !patterns.some((p) => id.startsWith(p.split('<')[0] ?? ''))),
  ];
}

/** Builds opponent `id` of env `envId`. */
export function createCliOpponent(envId: string, id: string): OpponentV1<unknown, unknown> {
  const opponents = matchDefinition(envId).opponents;
  if (!opponents) throw new UnknownIdError('env', envId, []);
  return opponents.create(id);
}

/** The game `mage solve` / `mage best-response` know by `name`: one of its `solveNames`, or its env id. */
export function solvableGame(name: string): MatchGame {
  const solvable = withMatch().filter((d) => d.opponents?.match?.solveNames);
  const found = solvable.find((d) => d.id === name || d.opponents?.match?.solveNames?.includes(name));
  if (!found)
    throw new UnknownIdError(
      'game',
      name,
      solvable.flatMap((d) => d.opponents?.match?.solveNames ?? []),
    );
  return matchGame(found.id);
}
