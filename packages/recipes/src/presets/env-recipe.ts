/**
 * An env's recipe (`EnvDefinitionV1.recipe`): the run preset its runs use when none is asked for, and its
 * own scale under that preset. The values sit right over the preset, under the env's defaults, so a run
 * under any other preset (`--preset laptop`) is that preset as it is (architecture/recipes.md, "Recipes").
 */

import { envDefinition } from '../environments/registry';
import type { RunPresetId } from './run-presets';
import type { TrainConfigInput } from './schema';

/** The preset of a run that names none, for an env without a recipe. */
export const DEFAULT_RUN_PRESET: RunPresetId = 'laptop';

/** The run preset env `envId` uses when none is asked for: its recipe's, else `laptop`. */
export function defaultPresetOf(envId: string): RunPresetId {
  return (envDefinition(envId).recipe?.preset as RunPresetId | undefined) ?? DEFAULT_RUN_PRESET;
}

/** Env `envId`'s values over `preset`: its recipe's values when its recipe names that preset, else none. */
export function recipeLayerOf(envId: string, preset: RunPresetId): TrainConfigInput {
  const recipe = envDefinition(envId).recipe;
  return recipe?.preset === preset ? ((recipe.values ?? {}) as TrainConfigInput) : {};
}
