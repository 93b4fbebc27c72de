/**
 * The warm start of a run, in one place: which directory it is (a model of the user's, or the cache entry
 * keyed by everything that makes it), whether it can be had (the model's shape, the env's teacher),
 * finding it in the cache or building it (`pretrainMageTiny`, `pretrain.ts`), and loading it (a damaged
 * cache entry is built again). The trainer resolves it once per run (`resolveWarmStart`); `mage pretrain`
 * is `pretrainOrReuse`. See architecture/trainer.md.
 */

import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError, type JsonObject, MageError, pathExists, removeDirAtomic } from '@mage-rl/core';
import { countParams, modelKindOf, readMageTinyManifest } from '@mage-rl/learner';
import {
  envDefinition,
  envRegistry,
  RUN_PRESETS,
  type RunPresetId,
  recipeLayerOf,
  type TrainConfig,
  type TrainConfigInput,
} from '@mage-rl/recipes';
import {
  type FirstTry,
  noteRecallWarning,
  type PretrainOptions,
  type PretrainProgress,
  type PretrainResult,
  pretrainMageTiny,
} from './pretrain';
import { assertWarmStartTeacher } from './warm-start-corpus';

export const DEFAULT_CACHE_DIR = '.mage-cache';

/** What a warm start is made from (the inputs of `warmStartKey`). */
type WarmStartInputs = Pick<PretrainOptions, 'envs' | 'preset' | 'seed' | 'warmStart' | 'envOptions'>;

/**
 * The warm-start numbers a key holds: the preset's, under the envs' recipe values for that preset, under
 * their own defaults (envs sorted by id), under the caller's. A reader's opening of 0 makes the same corpus
 * as none, so it is left out, and keys made before envs had warm-start defaults stay the same.
 */
function warmStartValues(
  options: Pick<PretrainOptions, 'envs' | 'preset' | 'warmStart'>,
  registry: ReturnType<typeof envRegistry>,
): JsonObject {
  const envs = [...options.envs].sort();
  const recipes = envs.map((env) => (recipeLayerOf(env, options.preset).warmStart ?? {}) as JsonObject);
  const envDefaults = envs.map((env) => (registry.get(env).defaults.warmStart ?? {}) as JsonObject);
  const { readerOpening, ...rest } = Object.assign(
    {},
    RUN_PRESETS[options.preset].warmStart,
    ...recipes,
    ...envDefaults,
    options.warmStart,
  ) as JsonObject;
  return readerOpening ? { ...rest, readerOpening } : rest;
}

/**
 * The env options a key holds: those that differ from what the env resolves when given none (over its
 * definition's default options), so that a default spelled out (`--set env.options.reveal=none`) keys as
 * left out and reuses that warm start. All of them with several envs, or when the env cannot be made
 * from its defaults alone.
 */
function keyedEnvOptions(
  envs: readonly string[],
  envOptions: JsonObject | undefined,
  registry: ReturnType<typeof envRegistry>,
): JsonObject | undefined {
  if (envOptions === undefined || Object.keys(envOptions).length === 0) return undefined;
  const [env] = envs;
  if (envs.length !== 1 || env === undefined) return envOptions;
  let resolved: JsonObject;
  try {
    const definition = registry.get(env);
    resolved = definition.create(
      (definition.defaults.env as { options?: JsonObject } | undefined)?.options ?? {},
    ).options;
  } catch {
    return envOptions;
  }
  const kept = Object.entries(envOptions).filter(
    ([k, v]) => JSON.stringify(v) !== JSON.stringify(resolved[k]),
  );
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

/** A key of everything that determines a warm start (for caching). */
export function warmStartKey(options: WarmStartInputs): string {
  // The preset's warm-start numbers are part of the key: changing a preset must not reuse old weights.
  // Envs from packages add the package they came from and the env options their defaults set (a package
  // may change them between versions; a first-party env's are fixed with this key).
  const registry = envRegistry();
  const envs = [...options.envs].sort();
  const packages = envs.flatMap((env) => {
    const source = registry.packageOf(env);
    if (source === undefined) return [];
    const defaults = (registry.get(env).defaults.env as { options?: JsonObject } | undefined)?.options ?? {};
    return [`${env}=${source}`, ...(Object.keys(defaults).length > 0 ? [JSON.stringify(defaults)] : [])];
  });
  // A teacher past its first revision keys its warm starts apart from the earlier teacher's.
  const teachers = envs.flatMap((env) => {
    const revision = registry.has(env) ? (registry.get(env).warmStart?.revision ?? 1) : 1;
    return revision > 1 ? [`${env}@${revision}`] : [];
  });
  const envOptions = keyedEnvOptions(envs, options.envOptions, registry);
  const text = JSON.stringify({
    v: 4,
    envs,
    preset: options.preset,
    seed: options.seed,
    ws: warmStartValues(options, registry),
    ...(envOptions === undefined ? {} : { env: envOptions }),
    ...(packages.length > 0 ? { packages } : {}),
    ...(teachers.length > 0 ? { teachers } : {}),
  });
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** Where a warm start with these inputs is cached. */
export function warmStartDir(cacheDir: string, options: WarmStartInputs): string {
  return join(
    cacheDir,
    'mage-tiny',
    `${[...options.envs].sort().join('+')}-${options.preset}-${warmStartKey(options)}`,
  );
}

/**
 * What a config override holds that makes a warm start (its `warmStart` values and `env.options`, the
 * inputs of `warmStartKey`), and the paths of everything else it sets, which a warm start does not read.
 */
export function warmStartOverridesOf(overrides: TrainConfigInput | undefined): {
  readonly inputs: Pick<PretrainOptions, 'warmStart' | 'envOptions'>;
  readonly otherPaths: readonly string[];
} {
  const { warmStart, env, ...rest } = overrides ?? {};
  const { options, ...envRest } = env ?? {};
  return {
    inputs: {
      ...(warmStart ? { warmStart: warmStart as Partial<TrainConfig['warmStart']> } : {}),
      ...(options ? { envOptions: options as JsonObject } : {}),
    },
    otherPaths: [...Object.keys(rest), ...Object.keys(envRest).map((k) => `env.${k}`)],
  };
}

/** The inputs of the warm start of `envs` under config values `overrides`. */
const inputsOf = (
  options: Pick<PretrainOptions, 'envs' | 'preset' | 'seed'> & { readonly overrides?: TrainConfigInput },
): WarmStartInputs => ({
  envs: options.envs,
  preset: options.preset,
  seed: options.seed,
  ...warmStartOverridesOf(options.overrides).inputs,
});

/**
 * What the warm start in `dir` recorded when it was made (its `mage-tiny.json`), as `pretrainMageTiny`
 * returned it; undefined when `dir` holds no finished warm start (none, a damaged manifest, or a model
 * directory that no warm start wrote). `mage pretrain` reuses a cache entry this finds.
 */
export async function cachedWarmStart(dir: string): Promise<PretrainResult | undefined> {
  if (!(await pathExists(join(dir, 'mage-tiny.json')))) return undefined;
  const manifest = await readMageTinyManifest(dir).catch((error: unknown) => {
    if (MageError.isInstance(error)) return undefined;
    throw error;
  });
  const r = manifest?.warmStart as Partial<Record<string, unknown>> | undefined;
  if (!manifest || !r || !Array.isArray(r.results) || !Array.isArray(r.lossCurve)) return undefined;
  const num = (v: unknown) => (typeof v === 'number' ? v : 0);
  return {
    dir,
    vocabSize: manifest.config.vocabSize,
    parameters: countParams(manifest.config),
    examples: num(r.examples),
    tokens: num(r.tokens),
    lossCurve: r.lossCurve as PretrainResult['lossCurve'],
    envs: r.results as PretrainResult['envs'],
    seconds: num(r.seconds),
    peakRssBytes: num(r.peakRssBytes),
    ...(r.firstTry && typeof r.firstTry === 'object' ? { firstTry: r.firstTry as FirstTry } : {}),
  };
}

export interface PretrainOrReuseOptions
  extends Pick<
    PretrainOptions,
    'envs' | 'preset' | 'seed' | 'evalEpisodes' | 'signal' | 'onProgress' | 'log'
  > {
  /** Config values; their `warmStart` values and `env.options` make the warm start (the rest is not read). */
  readonly overrides?: TrainConfigInput;
  /** Default `DEFAULT_CACHE_DIR`. */
  readonly cacheDir?: string;
  /** Write here instead of the cache entry (always pretrains). */
  readonly outDir?: string;
  /** Pretrain again even when the cache entry holds this warm start. */
  readonly force?: boolean;
}

/**
 * The warm start of `options` (`mage pretrain`): the cache entry keyed by everything that makes it when it
 * holds a finished one (unless `force`), else pretrained into it (or into `outDir`).
 */
export async function pretrainOrReuse(
  options: PretrainOrReuseOptions,
): Promise<PretrainResult & { readonly cached: boolean }> {
  const { overrides, cacheDir, outDir, force, ...rest } = options;
  const spec = inputsOf(options);
  const dir = outDir ?? resolve(warmStartDir(cacheDir ?? DEFAULT_CACHE_DIR, spec));
  const cached = outDir === undefined && !force ? await cachedWarmStart(dir) : undefined;
  if (cached) return { ...cached, cached: true };
  return { ...(await pretrainMageTiny({ ...rest, ...spec, outDir: dir })), cached: false };
}

/** The warm start a run asks for, and how building one reports. */
export interface WarmStartRequest {
  readonly env: string;
  readonly preset: RunPresetId;
  readonly seed: number;
  /** A mage-tiny or Hugging Face model directory to start from instead of the cached warm start. */
  readonly model?: string;
  /** The option `model` came from, as errors quote it (default `model`; an experiment's is `spec.model`). */
  readonly modelOption?: string;
  /** The cache root (default `DEFAULT_CACHE_DIR`). */
  readonly cacheDir?: string;
  /** The run's config values: their `warmStart` values and `env.options` make the warm start. */
  readonly overrides?: TrainConfigInput;
  readonly signal?: AbortSignal;
  readonly log?: (line: string) => void;
  readonly onPretrainProgress?: (p: PretrainProgress) => void;
}

/** A resolved warm start: its directory, and what checks, finds or builds, and loads it. */
export interface ResolvedWarmStart {
  /** `model`, or the cache entry (which may not hold a warm start yet). */
  readonly dir: string;
  /**
   * Refuses what cannot start a run, before anything is built: a `model` that is not a model directory,
   * or, without one, an env with no warm-start teacher.
   */
  check(): Promise<void>;
  /**
   * `check`, then the directory: `model`, the cache entry when it holds a warm start, else pretrained into
   * it. `evaluate: false` skips a new warm start's own evaluation, for a caller that evaluates it anyway.
   */
  ensure(options?: { readonly evaluate?: boolean }): Promise<string>;
  /**
   * `ensure`, then `load` of the directory. A damaged cache entry (the cache is this program's, not the
   * user's) is removed and pretrained again, not fatal; a damaged `model` is the user's and is an error.
   */
  load<T>(load: (dir: string) => Promise<T>): Promise<{ readonly dir: string; readonly loaded: T }>;
}

/**
 * Refuses a `model` that is not a mage-tiny or Hugging Face model directory, quoting `option` and the
 * path. A run directory is not one: its weights are a checkpoint over its own warm start.
 */
export async function checkModelDir(model: string, option = 'model'): Promise<void> {
  const dir = resolve(model);
  const info = await stat(dir).catch(() => null);
  const shapes =
    'a mage-tiny directory (mage-tiny.json) nor a Hugging Face checkpoint directory (config.json + *.safetensors)';
  if (info === null || !info.isDirectory()) {
    throw new ConfigError(
      `\`${option}\` '${model}': ${info === null ? 'no such directory' : 'is a file, not a directory'} (${dir}); \`${option}\` takes ${shapes.replace('nor', 'or')}.`,
      { path: option, context: { dir } },
    );
  }
  const run = (await pathExists(join(dir, 'checkpoints')))
    ? `; it is a run directory (\`mage export ${model} --out <dir>\` makes a model directory of it)`
    : '';
  await modelKindOf(dir).catch((error: unknown) => {
    if (!MageError.isInstance(error)) throw error;
    throw new ConfigError(`\`${option}\` '${model}' (${dir}) is neither ${shapes}${run}.`, {
      path: option,
      context: { dir },
      cause: error,
    });
  });
}

/** Pretrains the warm start of `request` into `dir`, logging what the warm model does. */
async function buildWarmStart(request: WarmStartRequest, dir: string, evaluate: boolean): Promise<void> {
  const { log } = request;
  log?.(
    `warm start: none cached for ${request.env}/${request.preset}/seed ${request.seed}; pretraining mage-tiny into ${dir}`,
  );
  const r = await pretrainMageTiny({
    ...inputsOf({ ...request, envs: [request.env] }),
    outDir: dir,
    ...(evaluate ? {} : { evalEpisodes: 0 }),
    ...(request.signal ? { signal: request.signal } : {}),
    ...(log ? { log } : {}),
    ...(request.onPretrainProgress ? { onProgress: request.onPretrainProgress } : {}),
  });
  for (const e of r.envs) {
    const recall = e.noteRecall === undefined ? '' : `, notes recall ${(100 * e.noteRecall).toFixed(1)}%`;
    log?.(
      `warm start ${e.env}: legal moves ${(100 * e.legalMoveRate).toFixed(1)}%${recall}, pass@k ${e.passAtK.map((x) => x.toFixed(2)).join(' ')} (${r.seconds.toFixed(0)} s)`,
    );
    const warning = noteRecallWarning(e);
    if (warning) log?.(warning);
  }
}

/**
 * The warm start of a run: `model` when given, else the cache entry for (env, preset, seed, the config's
 * `warmStart` values and env options: the teachers play the env variant the run trains on). Nothing is
 * read or built until `check`, `ensure` or `load`.
 */
export function resolveWarmStart(request: WarmStartRequest): ResolvedWarmStart {
  const { model } = request;
  const dir =
    model ??
    warmStartDir(request.cacheDir ?? DEFAULT_CACHE_DIR, inputsOf({ ...request, envs: [request.env] }));
  const check = async () => {
    if (model !== undefined) await checkModelDir(model, request.modelOption);
    else assertWarmStartTeacher(envDefinition(request.env));
  };
  const ensure = async (options: { readonly evaluate?: boolean } = {}) => {
    await check();
    if (model !== undefined) return model;
    if (await pathExists(join(dir, 'mage-tiny.json'))) {
      request.log?.(`warm start: ${dir} (cached)`);
      return dir;
    }
    await buildWarmStart(request, dir, options.evaluate !== false);
    return dir;
  };
  return {
    dir,
    check,
    ensure,
    async load(load) {
      await ensure();
      try {
        return { dir, loaded: await load(dir) };
      } catch (error) {
        if (model !== undefined || !MageError.isInstance(error) || error.code === 'ABORTED') throw error;
        request.log?.(`warm start: the cache entry ${dir} is damaged (${error.message}); rebuilding it`);
        await removeDirAtomic(dir);
        await ensure();
        return { dir, loaded: await load(dir) };
      }
    },
  };
}

/** The warm-start directory a run will use, without building it (`resolveWarmStart(request).dir`). */
export const plannedWarmStart = (request: WarmStartRequest): string => resolveWarmStart(request).dir;

/** The warm start of a run, found or built (`resolveWarmStart(request).ensure(request)`). */
export const ensureWarmStart = (
  request: WarmStartRequest & { readonly evaluate?: boolean },
): Promise<string> => resolveWarmStart(request).ensure(request);
