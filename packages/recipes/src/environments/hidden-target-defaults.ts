/**
 * The training defaults the hidden-target tasks (Doors, Treasure) share: the settings under which RL
 * taught mage-tiny to read its own notes from a note-blind warm start (architecture/recipes.md, "Hidden-target defaults").
 * - `episodeScore: 'return'`: a probe is credited with the later attempts it makes win, not only with
 *   its own attempt's meta-reward;
 * - `episodeBaseline: 'attempt'`: each attempt is compared with the same attempt of the other rollouts;
 * - `reflectWeight: 0` and `klCoef: 0.1`: the notes stay out of the loss, and the KL term keeps them
 *   saying what the warm start taught them to say.
 * The budget of those runs (300 iterations, mini-batches of 8 rows, a 4× warm-start corpus) is a matter
 * of scale: it is the `reading` run preset, which these envs' recipe names (`HIDDEN_TARGET_RECIPE`), so
 * `mage train --env doors --seed N` runs it and `--preset laptop` runs laptop's budget.
 */

import type { EnvRecipeV1, JsonObject } from '@mage-rl/core';
import type { TrainConfigInput } from '../presets/schema';

/** Where the runs these defaults and the recipe reproduce are written up. */
const RESULTS = 'docs/results/adaptation-from-scratch';

/**
 * The recipe of the hidden-target tasks: the `reading` run preset, and `values` over it for the env that
 * needs its own scale (Treasure: 16 groups, `ppo.lr` 3e-4).
 */
export function hiddenTargetRecipe(values?: TrainConfigInput & JsonObject): EnvRecipeV1 {
  return { preset: 'reading', ...(values ? { values } : {}), results: RESULTS };
}

export const HIDDEN_TARGET_DEFAULTS = {
  rollout: { seats: 'first' },
  population: { preset: 'none', fixedOpponent: null, mode: 'sampled' },
  advantage: {
    trajGamma: 0.9,
    invalidPenalty: 0.5,
    episodeScore: 'return',
    episodeBaseline: 'attempt',
    reflectWeight: 0,
  },
  ppo: { klCoef: 0.1 },
} as const satisfies TrainConfigInput;
