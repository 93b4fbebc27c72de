/** Run-time check of an env definition from a package: clear errors instead of failures deep in a run. */

import { ConfigError, type EnvDefinitionV1, isJsonSafe } from '@mage-rl/core';
import { RUN_PRESET_IDS, RUN_PRESETS } from '../presets/run-presets';

type Plain = Record<string, unknown>;

const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Env ids name run and cache directories: letters, digits, `.`, `_`, `-`. */
const ID = /^[A-Za-z0-9][\w.-]*$/;

/** The config keys that identify a run: chosen by the user, never by an env's defaults. */
const IDENTITY_KEYS = ['method', 'preset', 'seed'] as const;

/** The dotted paths of the leaves of `value` (arrays are leaves). */
function leafPaths(value: Plain, prefix = ''): string[] {
  return Object.entries(value).flatMap(([key, v]) =>
    isPlain(v) ? leafPaths(v, `${prefix}${key}.`) : [`${prefix}${key}`],
  );
}

/** What a recipe's values may set: the paths a run preset sets (scale, sampling, optimisation). */
const PRESET_PATHS = new Set(leafPaths(RUN_PRESETS.laptop).filter((p) => p !== 'provisional'));

/** A problem with `recipe` (an `EnvRecipeV1`), as a sentence fragment, or null. */
function recipeProblemOf(recipe: unknown): string | null {
  if (!isPlain(recipe)) return 'has a recipe that is not an object ({ preset, values? })';
  if (!(RUN_PRESET_IDS as readonly unknown[]).includes(recipe.preset)) {
    return `has recipe.preset ${JSON.stringify(recipe.preset)}; known run presets: ${RUN_PRESET_IDS.join(', ')}`;
  }
  if (recipe.results !== undefined && typeof recipe.results !== 'string') {
    return 'has recipe.results that is not a string';
  }
  if (recipe.values === undefined) return null;
  if (!isPlain(recipe.values) || !isJsonSafe(recipe.values)) {
    return 'has recipe.values that are not a JSON object (config values over the run preset)';
  }
  const other = leafPaths(recipe.values).find((p) => !PRESET_PATHS.has(p));
  return other === undefined
    ? null
    : `sets recipe.values.${other}, which no run preset sets; a recipe changes the preset's scale, sampling and optimisation numbers, and the rest belongs in defaults`;
}

/** A problem with the definition, as a sentence fragment (`create must be a function`), or null. */
function problemOf(d: Plain): string | null {
  if (d.specificationVersion !== 'v1') {
    return `has specificationVersion ${JSON.stringify(d.specificationVersion)}; expected 'v1' (EnvDefinitionV1 of @mage-rl/core)`;
  }
  if (typeof d.id !== 'string' || !ID.test(d.id)) {
    return `has id ${JSON.stringify(d.id)}; an id is letters, digits, '.', '_' and '-'`;
  }
  if (typeof d.description !== 'string') return 'needs a description (a string)';
  if (typeof d.create !== 'function') return 'needs create(options), a function returning an EnvV1';
  if (!isPlain(d.defaults) || !isJsonSafe(d.defaults)) {
    return 'needs defaults: a JSON object (a partial train config, {} for none)';
  }
  for (const key of IDENTITY_KEYS) {
    if (key in d.defaults) return `sets defaults.${key}, which only the user chooses`;
  }
  const env = d.defaults.env;
  if (isPlain(env) && ('id' in env || 'package' in env)) {
    return 'sets defaults.env.id or defaults.env.package, which come from the registry';
  }
  if (d.recipe !== undefined) {
    const problem = recipeProblemOf(d.recipe);
    if (problem !== null) return problem;
  }
  if (d.opponents !== undefined) {
    const o = d.opponents;
    if (!isPlain(o)) return 'has opponents that are not an object';
    if (!isStrings(o.ids) || !isStrings(o.patterns))
      return 'needs opponents.ids and opponents.patterns (string lists)';
    if (typeof o.has !== 'function' || typeof o.create !== 'function') {
      return 'needs opponents.has(id) and opponents.create(id) (functions)';
    }
    if (!isPlain(o.populations)) return 'needs opponents.populations (name → [{ id, weight }])';
    for (const [name, entries] of Object.entries(o.populations)) {
      const ok =
        Array.isArray(entries) &&
        entries.every((e) => isPlain(e) && typeof e.id === 'string' && typeof e.weight === 'number');
      if (!ok) return `has opponents.populations.${name} that is not a list of { id, weight }`;
    }
    if (o.match !== undefined && (!isPlain(o.match) || !isPlain(o.match.model) || !('root' in o.match))) {
      return 'has opponents.match without a game model and root';
    }
  }
  if (d.warmStart !== undefined) {
    const w = d.warmStart;
    if (!isPlain(w) || typeof w.teacher !== 'function' || !isStrings(w.words)) {
      return 'needs warmStart.teacher(env, options) (a function) and warmStart.words (a string list)';
    }
  }
  if (d.labels !== undefined) {
    const l = d.labels;
    const strings = isPlain(l) && Object.values(l).every((v) => v === undefined || typeof v === 'string');
    if (!strings) return 'has labels that are not an object of strings';
  }
  return null;
}

/** Whether `value` passes the checks of `problemOf`, which are what an `EnvDefinitionV1` promises at run time. */
function isEnvDefinition(value: unknown): value is EnvDefinitionV1 {
  return isPlain(value) && problemOf(value) === null;
}

/**
 * `value` as an `EnvDefinitionV1`, or a `ConfigError` naming the package (`source`; undefined for a
 * definition handed over in code, whose errors name the `env` option) and what is wrong.
 */
export function checkEnvDefinition(value: unknown, source: string | undefined): EnvDefinitionV1 {
  if (isEnvDefinition(value)) return value;
  const where =
    source === undefined
      ? { path: 'env', context: {} }
      : { path: 'env.package', context: { package: source } };
  if (!isPlain(value)) {
    const got = value === null ? 'null' : typeof value;
    throw new ConfigError(
      source === undefined
        ? `\`env\` is neither an env id nor an env definition: expected an EnvDefinitionV1 object (from @mage-rl/core), got ${got}.`
        : `Env package '${source}' does not export an env definition: expected an EnvDefinitionV1 object (from @mage-rl/core), got ${got}.`,
      where,
    );
  }
  const what = source === undefined ? '`env`' : `Env package '${source}': its env definition`;
  throw new ConfigError(`${what} ${problemOf(value)}.`, where);
}
