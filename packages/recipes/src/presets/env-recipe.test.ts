import { ConfigError, type EnvDefinitionV1 } from '@mage-rl/core';
import { createDoors } from '@mage-rl/envs/doors';
import { describe, expect, it } from 'vitest';
import { addEnvDefinition, envRegistry } from '../environments/registry';
import { defaultPresetOf, recipeLayerOf } from './env-recipe';
import { presetValuesFor, resolveTrainConfig } from './resolve-config';
import { RUN_PRESETS } from './run-presets';

/** A single-agent env from a package whose recipe is the reading preset at 4 groups × 2 slots. */
const probe: EnvDefinitionV1 = {
  specificationVersion: 'v1',
  id: 'probe-recipe',
  description: 'Doors under another id',
  create: (options) => createDoors(options),
  defaults: { ppo: { klCoef: 0.1 } },
  recipe: { preset: 'reading', values: { rollout: { groups: 4, groupSize: 2 }, ppo: { lr: 5e-4 } } },
};

describe('env recipes', () => {
  it('choose the preset of a run that names none: reading for Doors, Treasure and RPS, laptop otherwise', () => {
    expect(['doors', 'treasure', 'rps'].map(defaultPresetOf)).toEqual(['reading', 'reading', 'reading']);
    for (const env of ['tictactoe', 'kuhn-poker', 'sokoban']) {
      expect(defaultPresetOf(env), env).toBe('laptop');
      expect(resolveTrainConfig({}, { env }).preset, env).toBe('laptop');
    }
    const c = resolveTrainConfig({}, { env: 'treasure' });
    expect([c.preset, c.train.iterations, c.ppo.miniBatchRows, c.warmStart.iterations]).toEqual([
      'reading',
      300,
      8,
      32,
    ]);
    // Treasure's own scale under it; the preset named in the config values wins over the recipe's.
    expect([c.rollout.groups, c.ppo.lr]).toEqual([16, 3e-4]);
    expect(resolveTrainConfig({ preset: 'smoke' }, { env: 'treasure' }).preset).toBe('smoke');
  });

  it('apply their values under their preset only, named or not, below the env defaults and the user', () => {
    expect(recipeLayerOf('treasure', 'laptop')).toEqual({});
    expect(presetValuesFor('laptop', 'treasure')).toEqual(
      (({ provisional: _, ...v }) => v)(RUN_PRESETS.laptop),
    );
    const named = resolveTrainConfig({}, { env: 'treasure', preset: 'reading' });
    expect(named.rollout.groups).toBe(16);
    const laptop = resolveTrainConfig({}, { env: 'treasure', preset: 'laptop' });
    expect([laptop.rollout.groups, laptop.ppo.lr, laptop.train.iterations]).toEqual([8, 1e-4, 16]);
    // The env's defaults still apply under any preset; the user's values win over the recipe's.
    expect(laptop.advantage.episodeScore).toBe('return');
    const user = resolveTrainConfig({ rollout: { groups: 2 } }, { env: 'treasure' });
    expect(user.rollout.groups).toBe(2);
  });

  it("scale the recipe's group size by the method (GRPO's larger groups)", () => {
    addEnvDefinition(probe, { package: 'probe-package' });
    expect(resolveTrainConfig({}, { env: probe.id }).rollout.groupSize).toBe(2);
    // GRPO and GiGPO play three times the slots per group: 3 × the recipe's 2, not 3 × laptop's 4.
    expect(resolveTrainConfig({}, { env: probe.id, method: 'grpo' }).rollout.groupSize).toBe(6);
    expect(resolveTrainConfig({}, { env: probe.id }).ppo.lr).toBe(5e-4);
  });

  it('refuse an unknown preset and values no run preset sets, naming the path', () => {
    const cases: [unknown, RegExp][] = [
      [{ preset: 'huge' }, /recipe.preset "huge"; known run presets: paper, laptop, reading, smoke/],
      [
        { preset: 'reading', values: { advantage: { episodeScore: 'return' } } },
        /recipe.values.advantage.episodeScore, which no run preset sets/,
      ],
      [{ preset: 'reading', values: { ppo: { klCoef: 0.1 } } }, /recipe.values.ppo.klCoef/],
      [{ preset: 'reading', values: [] }, /recipe.values that are not a JSON object/],
      ['reading', /recipe that is not an object/],
    ];
    for (const [recipe, message] of cases) {
      const add = () => addEnvDefinition({ ...probe, id: 'bad-recipe', recipe }, { package: 'bad' });
      expect(add).toThrow(ConfigError);
      expect(add).toThrow(message);
    }
    expect(envRegistry().has('bad-recipe')).toBe(false);
  });
});
