/**
 * Explicit wiring of the first-party packages by id: envs, opponent factories, populations and the
 * memories of the methods. No registration by import side effects.
 */

import {
  createPopulation,
  type EnvV1,
  fixedPopulation,
  type MemoryV1,
  type OpponentV1,
  type PopulationMode,
  type PopulationV1,
  UnknownIdError,
} from '@mage-rl/core';
import { createKuhnPoker, type KuhnPokerOptions } from '@mage-rl/envs/kuhn-poker';
import { createSokoban, type SokobanOptions } from '@mage-rl/envs/sokoban';
import { createTicTacToe, type TicTacToeOptions } from '@mage-rl/envs/tictactoe';
import { opponentRegistry, POPULATION_PRESETS, populationPreset } from '@mage-rl/opponents';
import {
  type AMemOptions,
  createAMemMemory,
  createMementoMemory,
  createMemory,
  type LayoutOptions,
  MEMORY_MODES,
  type MementoOptions,
  type MemoryMode,
} from '@mage-rl/reflection';

export const RECIPE_ENV_IDS = ['tictactoe', 'kuhn-poker', 'sokoban'] as const;
export type RecipeEnvId = (typeof RECIPE_ENV_IDS)[number];

/** Memory modes of `@mage-rl/reflection` plus the two retrieval baselines. */
export const MEMORY_KINDS = [
  'reflection',
  'history',
  'reflection+history',
  'none',
  'memento',
  'a-mem',
] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];
// Every memory mode of @mage-rl/reflection is a kind (compile-time check).
const _modesAreKinds: readonly MemoryKind[] = [] as MemoryMode[];

/** Builds env `id` with `options` (validated by the env: a bad option throws `ConfigError`). */
export function createEnvById(id: string, options: Readonly<Record<string, unknown>> = {}): EnvV1 {
  switch (id) {
    case 'tictactoe':
      return createTicTacToe(options as TicTacToeOptions) as unknown as EnvV1;
    case 'kuhn-poker':
      return createKuhnPoker(options as KuhnPokerOptions) as unknown as EnvV1;
    case 'sokoban':
      return createSokoban(options as SokobanOptions) as unknown as EnvV1;
    default:
      throw new UnknownIdError('env', id, RECIPE_ENV_IDS);
  }
}

/**
 * A `makeOpponent` for the runner: fresh opponents of env `envId` by id (`undefined` for Sokoban). `S`
 * and `A` are the env's state and action types (the registry of `envId` builds opponents of that env).
 */
export function opponentFactory<S = unknown, A = unknown>(
  envId: string,
): ((id: string) => OpponentV1<S, A>) | undefined {
  if (envId === 'sokoban') return undefined;
  const registry = opponentRegistry(envId);
  return (id) => registry.create(id) as OpponentV1<S, A>;
}

/** Throws `UnknownIdError` (listing the known ids) unless env `envId` has opponent `id`. */
export function checkOpponentId(envId: string, id: string): void {
  const registry = opponentRegistry(envId);
  if (!registry.has(id)) {
    throw new UnknownIdError('opponent', id, [...registry.patterns, ...registry.ids]);
  }
}

/** Population preset names of an env (`balanced`, `ood`, … plus `fixed`). */
export function populationNames(envId: string): string[] {
  const byEnv = (POPULATION_PRESETS as Readonly<Record<string, Readonly<Record<string, unknown>>>>)[envId];
  return byEnv ? [...Object.keys(byEnv), 'fixed'] : [];
}

export interface PopulationChoice {
  /** A preset of `@mage-rl/opponents` (`balanced`, `patterns`, `ood`) or `fixed`. */
  readonly preset: string;
  /** The opponent of the `fixed` population. */
  readonly fixedOpponent: string | null;
  readonly mode: PopulationMode;
  readonly grouping: 'per-opponent' | 'mixed';
}

/** The training population of a two-player env; `undefined` for single-agent envs. */
export function createPopulationFor(envId: string, choice: PopulationChoice): PopulationV1 | undefined {
  if (envId === 'sokoban') return undefined;
  if (choice.preset === 'fixed') {
    const id = choice.fixedOpponent;
    if (id === null) throw new UnknownIdError('opponent', 'null', opponentRegistry(envId).ids);
    checkOpponentId(envId, id);
    const fixed = fixedPopulation(id);
    return createPopulation(fixed.name, fixed.entries, { mode: choice.mode, grouping: choice.grouping });
  }
  return populationPreset(envId, choice.preset, { mode: choice.mode, grouping: choice.grouping });
}

export interface MethodMemoryOptions extends LayoutOptions {
  readonly memento?: Omit<MementoOptions, keyof LayoutOptions>;
  readonly aMem?: Omit<AMemOptions, keyof LayoutOptions>;
}

/** A fresh memory of `kind` (retrieval memories start empty unless given cases / notes). */
export function createMemoryOfKind(kind: MemoryKind, options: MethodMemoryOptions = {}): MemoryV1 {
  const { memento, aMem, ...layout } = options;
  if (kind === 'memento') return createMementoMemory({ ...layout, ...memento });
  if (kind === 'a-mem') return createAMemMemory({ ...layout, ...aMem });
  if (!(MEMORY_MODES as readonly string[]).includes(kind))
    throw new UnknownIdError('memory', String(kind), MEMORY_KINDS);
  return createMemory({ ...layout, mode: kind as MemoryMode });
}
