/**
 * `resolveTrainConfig(partial, { preset, method, env })`: the whole train/eval configuration, merged
 * in layers — base defaults → run preset → the env's recipe values → per-env defaults → method → user
 * values — and validated.
 * Bad values throw `ConfigError` (dotted path, value, what is allowed); unknown ids `UnknownIdError`.
 */

import { ConfigError, MageError, UnknownIdError } from '@mage-rl/core';
import { DEFAULT_ADVANTAGE_OPTIONS } from '@mage-rl/gigpo';
import { envRegistry } from '../environments/registry';
import { checkOpponentId, createEnvById, populationNames } from '../wiring';
import { configErrorFromZod } from './config-errors';
import { envDefaultsOf } from './env-defaults';
import { defaultPresetOf, recipeLayerOf } from './env-recipe';
import { METHOD_IDS, METHODS, type MethodId } from './methods';
import { RUN_PRESET_IDS, RUN_PRESETS, type RunPresetId, type RunPresetValues } from './run-presets';
import { CONFIG_LIMITS, type TrainConfig, type TrainConfigInput, trainConfigSchema } from './schema';

export interface ResolveTrainConfigOptions {
  /** Default: `partial.preset`, else the env's recipe preset (`defaultPresetOf`: `laptop` for most envs). */
  readonly preset?: string;
  /** Default: `partial.method`, else `mage`. */
  readonly method?: string;
  /** Env id. Default: `partial.env.id`, else `tictactoe`. */
  readonly env?: string;
  /** Default: `partial.seed`, else 0. */
  readonly seed?: number | string;
}

type Plain = Record<string, unknown>;

const isPlain = (v: unknown): v is Plain =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

function mergePlain(layers: readonly unknown[]): Plain {
  const out: Plain = {};
  for (const layer of layers) {
    if (!isPlain(layer)) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      const prev = out[key];
      out[key] = isPlain(value) ? mergePlain([isPlain(prev) ? prev : {}, value]) : value;
    }
  }
  return out;
}

/**
 * Deep merge of plain objects; arrays, primitives and `null` replace; `undefined` is skipped. Layers of
 * one partial config type (`TrainConfigInput`) merge into that type: every key of the result comes from
 * a layer, and a nested object from merging the layers' objects at that key.
 */
export function mergeConfig<T extends object = Plain>(...layers: readonly (T | undefined)[]): T {
  return mergePlain(layers) as T;
}

// gigpo's defaults (the episode baseline among them, which an env's defaults may change); the method layer
// sets the anchor scope.
const {
  anchorScope: _anchorScope,
  lengthPenalty: _lengthPenalty,
  ...GIGPO_DEFAULTS
} = DEFAULT_ADVANTAGE_OPTIONS;

const BASE: TrainConfigInput = {
  seed: 0,
  trains: true,
  rollout: {
    memory: 'reflection',
    backend: 'local',
    openai: { baseURL: null, model: null, apiKeyEnv: null },
  },
  learner: {
    backend: 'local',
    tinker: { baseURL: null, baseModel: null, loraRank: 32, apiKeyEnv: 'TINKER_API_KEY', loss: 'exact' },
  },
  advantage: { ...GIGPO_DEFAULTS, grouping: 'per-opponent', lengthPenaltyCoef: 0 },
  ppo: { klCoef: 0 },
  memory: { budget: '6GiB' },
};

function pick<T extends string>(kind: string, id: string, known: readonly T[]): T {
  if (!(known as readonly string[]).includes(id)) throw new UnknownIdError(kind, id, known);
  return id as T;
}

/** A run preset's values as env `envId` runs it: the preset with the env's recipe values over it. */
export function presetValuesFor(preset: RunPresetId, envId: string): Omit<RunPresetValues, 'provisional'> {
  const { provisional: _, ...values } = RUN_PRESETS[preset];
  return mergeConfig<object>(values, recipeLayerOf(envId, preset)) as Omit<RunPresetValues, 'provisional'>;
}

/**
 * The method's layer over a run preset; `groupSize` is the group size below it (default: the preset's; an
 * env's recipe may change it), which the method scales.
 */
export function methodLayer(
  method: MethodId,
  preset: RunPresetId,
  groupSize: number = RUN_PRESETS[preset].rollout.groupSize,
): TrainConfigInput {
  const m = METHODS[method];
  return {
    method,
    trains: m.trains,
    rollout: {
      memory: m.memory,
      attempts: m.attempts,
      groupSize: groupSize * m.groupSizeScale,
    },
    advantage: {
      ...(m.metaReward ? { metaReward: m.metaReward } : {}),
      ...(m.estimator ? { estimator: m.estimator } : {}),
      grouping: m.grouping,
      anchorScope: m.anchorScope,
    },
    ...(m.klCoef === null ? {} : { ppo: { klCoef: m.klCoef } }),
  };
}

function rethrowEnvOption(error: unknown, envId: string, prefix: string): never {
  if (MageError.isInstance(error) && error.code === 'INVALID_CONFIG') {
    const raw = String(error.context.path ?? envId);
    const rest = raw.startsWith(`${envId}.`) ? raw.slice(envId.length + 1) : '';
    const path = rest ? `${prefix}.${rest}` : prefix;
    throw new ConfigError(`${path}: ${error.message}`, { path, cause: error, context: error.context });
  }
  throw error;
}

/** What the `tinker` learner backend needs, and the settings it cannot honour (architecture/tinker.md). */
function checkTinkerLearner(config: TrainConfig): void {
  for (const key of ['baseURL', 'baseModel'] as const) {
    if (config.learner.tinker[key] === null) {
      throw new ConfigError(`learner.tinker.${key} must be set when learner.backend is 'tinker'.`, {
        path: `learner.tinker.${key}`,
      });
    }
  }
  if (config.rollout.backend !== 'local') {
    throw new ConfigError(
      `learner.backend 'tinker' samples its rollouts on the Tinker service; rollout.backend must be 'local', got '${config.rollout.backend}'.`,
      { path: 'rollout.backend', context: { value: config.rollout.backend, allowed: ['local'] } },
    );
  }
  const { loss } = config.learner.tinker;
  if (loss === 'exact') return;
  if (config.ppo.klCoef > 0) {
    throw new ConfigError(
      `learner.tinker.loss '${loss}' is Tinker's built-in loss, which has no KL term to the reference; set ppo.klCoef=0 or learner.tinker.loss=exact (got ppo.klCoef=${config.ppo.klCoef}).`,
      { path: 'learner.tinker.loss', context: { value: loss, allowed: ['exact'] } },
    );
  }
  if (config.ppo.aggregation !== 'token-mean') {
    throw new ConfigError(
      `learner.tinker.loss '${loss}' averages over the mini-batch's tokens; ppo.aggregation '${config.ppo.aggregation}' needs learner.tinker.loss=exact.`,
      { path: 'learner.tinker.loss', context: { value: loss, allowed: ['exact'] } },
    );
  }
}

/** Cross-field checks zod cannot express: env options, populations and opponent ids (single-agent: none). */
function checkSemantics(config: TrainConfig): void {
  // `trains` is the method's, recorded so a run's config says whether it updates the model; setting it
  // (`--set trains=…`) would change nothing, so a value that disagrees with the method is refused.
  if (config.trains !== METHODS[config.method].trains) {
    throw new ConfigError(
      `trains follows the method ('${config.method}' ${METHODS[config.method].trains ? 'trains' : 'does not train'}); choose a method instead of setting it.`,
      { path: 'trains' },
    );
  }
  for (const [part, r] of [
    ['rollout', config.rollout],
    ['warmStart', config.warmStart],
  ] as const) {
    if (r.groups * r.groupSize > CONFIG_LIMITS.slots) {
      throw new ConfigError(
        `${part}.groups × ${part}.groupSize must be at most ${CONFIG_LIMITS.slots} meta-episodes per iteration, got ${r.groups} × ${r.groupSize} = ${r.groups * r.groupSize}.`,
        { path: `${part}.groups`, context: { value: r.groups * r.groupSize, allowed: CONFIG_LIMITS.slots } },
      );
    }
  }
  if (config.rollout.backend === 'openai') {
    for (const key of ['baseURL', 'model'] as const) {
      if (config.rollout.openai[key] === null) {
        throw new ConfigError(`rollout.openai.${key} must be set when rollout.backend is 'openai'.`, {
          path: `rollout.openai.${key}`,
        });
      }
    }
  }
  if (config.learner.backend === 'tinker') checkTinkerLearner(config);
  const envId = config.env.id;
  try {
    createEnvById(envId, config.env.options);
  } catch (error) {
    rethrowEnvOption(error, envId, 'env.options');
  }
  const evalOptions = { ...config.env.options, ...config.eval.envOptions };
  try {
    createEnvById(envId, evalOptions);
  } catch (error) {
    rethrowEnvOption(error, envId, 'eval.envOptions');
  }
  config.eval.outOfDomainEnvOptions.forEach((variant, i) => {
    try {
      createEnvById(envId, { ...evalOptions, ...variant });
    } catch (error) {
      rethrowEnvOption(error, envId, `eval.outOfDomainEnvOptions.${i}`);
    }
  });
  if (!envRegistry().get(envId).opponents) {
    for (const key of ['inDomain', 'outOfDomain'] as const) {
      if (config.eval[key].length > 0) {
        throw new ConfigError(
          `eval.${key} must be empty for the single-agent env '${envId}', got ${JSON.stringify(config.eval[key])}.`,
          { path: `eval.${key}`, context: { value: config.eval[key], allowed: [] } },
        );
      }
    }
    return;
  }
  const names = populationNames(envId);
  if (!names.includes(config.population.preset)) {
    throw new UnknownIdError('population', config.population.preset, names, {
      context: { path: 'population.preset' },
    });
  }
  if (config.population.preset === 'fixed') {
    if (config.population.fixedOpponent === null) {
      throw new ConfigError(
        "population.fixedOpponent must name an opponent when population.preset is 'fixed'.",
        {
          path: 'population.fixedOpponent',
        },
      );
    }
    checkOpponentId(envId, config.population.fixedOpponent);
  }
  for (const key of ['inDomain', 'outOfDomain'] as const) {
    for (const id of config.eval[key]) checkOpponentId(envId, id);
  }
}

/**
 * An identity key (preset, method, env id, seed) named both by the caller and inside the partial config
 * must agree: a value that would be silently replaced is refused instead.
 */
function checkIdentity(partial: TrainConfigInput, options: ResolveTrainConfigOptions): void {
  const pairs: [string, unknown, unknown][] = [
    ['preset', partial.preset, options.preset],
    ['method', partial.method, options.method],
    ['env.id', partial.env?.id, options.env],
    ['seed', partial.seed, options.seed],
  ];
  for (const [path, inConfig, given] of pairs) {
    if (inConfig !== undefined && given !== undefined && inConfig !== given) {
      const flag = path === 'env.id' ? 'env' : path;
      throw new ConfigError(
        `${path} is ${JSON.stringify(inConfig)} in the config values but ${JSON.stringify(given)} was asked for; an identity key is chosen with --${flag} (the flag), not inside --config or --set.`,
        { path, context: { value: inConfig, given } },
      );
    }
  }
}

/**
 * `env.package` names the package an env came from; it must be the one the registry added the env from
 * (first-party envs have none). The resolved config records it, so the config reproduces the run.
 */
function packageOf(envId: string, asked: unknown): string | undefined {
  const source = envRegistry().packageOf(envId);
  if (asked !== undefined && asked !== source) {
    const why =
      source === undefined
        ? `env '${envId}' is built in and comes from no package`
        : `env '${envId}' was added from package '${source}'`;
    throw new ConfigError(
      `env.package is ${JSON.stringify(asked)} but ${why}; an env package is loaded with --env-package (or addEnvDefinition in code) before the config is resolved.`,
      { path: 'env.package', context: { value: asked, package: source ?? null } },
    );
  }
  return source;
}

/**
 * Merges preset → the env's recipe values (under that preset) → env defaults → method → `partial` and
 * validates the result.
 */
export function resolveTrainConfig(
  partial: TrainConfigInput = {},
  options: ResolveTrainConfigOptions = {},
): TrainConfig {
  checkIdentity(partial, options);
  const method = pick('method', options.method ?? partial.method ?? 'mage', METHOD_IDS);
  const envId = envRegistry().get(options.env ?? partial.env?.id ?? 'tictactoe').id;
  const preset = pick('preset', options.preset ?? partial.preset ?? defaultPresetOf(envId), RUN_PRESET_IDS);
  const envPackage = packageOf(envId, partial.env?.package);
  const presetValues = presetValuesFor(preset, envId);
  const merged = mergeConfig(
    BASE,
    presetValues,
    ...envDefaultsOf(envId),
    methodLayer(method, preset, presetValues.rollout.groupSize),
    partial,
    {
      preset,
      method,
      env: { id: envId, ...(envPackage === undefined ? {} : { package: envPackage }) },
      ...(options.seed === undefined ? {} : { seed: options.seed }),
    },
  );
  const parsed = trainConfigSchema.safeParse(merged);
  if (!parsed.success) throw configErrorFromZod(parsed.error, merged, trainConfigSchema);
  checkSemantics(parsed.data);
  return parsed.data;
}
