/**
 * The supervised warm start of mage-tiny (`mage pretrain`): non-exploiting teachers play
 * meta-episodes through the core runner in the exact prompt layout of RL; the tokenizer is built from
 * what they saw and wrote; mage-tiny learns their responses (cross-entropy on response tokens); then the
 * warm model is evaluated for its legal-move rate. Everything derives from the seed.
 */

import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { type JsonObject, MageError, type PolicyV1, pathExists, throwIfAborted } from '@mage-rl/core';
import {
  countParams,
  createMageTiny,
  type LrSchedule,
  readMageTinyManifest,
  saveMageTiny,
} from '@mage-rl/learner';
import {
  createEnvById,
  envRegistry,
  evalPlayOptions,
  evaluateMethod,
  RUN_PRESETS,
  type RunPresetId,
  type TrainConfig,
  type TrainConfigInput,
} from '@mage-rl/recipes';
import { memoryLimitsOfConfig } from '../train/memory-limits';
import { buildMageTinyTokenizer } from './tokenizer';
import { type EnvPlan, envPlans, type TeacherCorpus, teacherCorpus } from './warm-start-corpus';
import { epochPlan, trainEpochs, trainingSet, warmStartSchedule } from './warm-start-training';

export interface PretrainProgress {
  readonly phase: 'corpus' | 'train' | 'eval' | 'save';
  readonly done: number;
  readonly total: number;
  readonly loss?: number;
}

export interface PretrainOptions {
  /** Env ids whose teachers produce the corpus. */
  readonly envs: readonly string[];
  readonly preset: RunPresetId;
  readonly seed: number;
  readonly outDir: string;
  /**
   * Meta-episodes per opponent for the warm model's own evaluation (legal moves, pass@k). Default: the
   * preset's `eval.episodes`; 0 skips it (`envs` is then empty), for callers that evaluate the warm
   * start under their own protocol anyway, as `mage experiment` does.
   */
  readonly evalEpisodes?: number;
  /** Overrides of the preset's `warmStart` numbers. */
  readonly warmStart?: Partial<TrainConfig['warmStart']>;
  /** Env options the teachers play with (a run's `env.options`; default the env's defaults). */
  readonly envOptions?: JsonObject;
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: PretrainProgress) => void;
  readonly log?: (line: string) => void;
}

export interface PretrainEnvResult {
  readonly env: string;
  readonly examples: number;
  /** Share of the warm model's play turns whose action was legal (1 − invalid-action rate). */
  readonly legalMoveRate: number;
  readonly validReflectionRate: number;
  /**
   * Mean share of each finished attempt's facts (moves, answers, result) that the warm model's notes state;
   * absent when it wrote no note. Notes that do not say what happened leave RL nothing to learn to read.
   */
  readonly noteRecall?: number;
  /** pass@k, k = 1..K, of the warm model against the training population. */
  readonly passAtK: readonly number[];
  /** The same for the teachers that produced the corpus. */
  readonly teacherPassAtK: readonly number[];
}

export interface PretrainResult {
  readonly dir: string;
  readonly vocabSize: number;
  readonly parameters: number;
  readonly examples: number;
  readonly tokens: number;
  readonly lossCurve: readonly { readonly step: number; readonly loss: number }[];
  readonly envs: readonly PretrainEnvResult[];
  readonly seconds: number;
  /** The process's peak RSS in bytes when the warm start was saved (`process.resourceUsage().maxRSS`). */
  readonly peakRssBytes: number;
}

/**
 * The row length of the warm start's training runs with `warmStart.batchTokens`: the laptop corpus's
 * transcripts are 134–501 tokens long, about two to a row.
 */
const WARM_START_ROW_LENGTH = 512;

/**
 * The warm-start numbers a key holds: the preset's, under the envs' own defaults (envs sorted by id), under
 * the caller's. A reader's opening of 0 makes the same corpus as none, so it is left out, and keys made
 * before envs had warm-start defaults stay the same.
 */
function warmStartValues(
  options: Pick<PretrainOptions, 'envs' | 'preset' | 'warmStart'>,
  registry: ReturnType<typeof envRegistry>,
): JsonObject {
  const envDefaults = [...options.envs]
    .sort()
    .map((env) => (registry.get(env).defaults.warmStart ?? {}) as JsonObject);
  const { readerOpening, ...rest } = Object.assign(
    {},
    RUN_PRESETS[options.preset].warmStart,
    ...envDefaults,
    options.warmStart,
  ) as JsonObject;
  return readerOpening ? { ...rest, readerOpening } : rest;
}

/** A key of everything that determines a warm start (for caching). */
export function warmStartKey(
  options: Pick<PretrainOptions, 'envs' | 'preset' | 'seed' | 'warmStart' | 'envOptions'>,
): string {
  // The preset's warm-start numbers are part of the key: changing a preset must not reuse old weights.
  // Envs from packages add the package they came from.
  const registry = envRegistry();
  const packages = [...options.envs].sort().flatMap((env) => {
    const source = registry.packageOf(env);
    return source === undefined ? [] : [`${env}=${source}`];
  });
  const text = JSON.stringify({
    v: 4,
    envs: [...options.envs].sort(),
    preset: options.preset,
    seed: options.seed,
    ws: warmStartValues(options, registry),
    ...(options.envOptions && Object.keys(options.envOptions).length > 0 ? { env: options.envOptions } : {}),
    ...(packages.length > 0 ? { packages } : {}),
  });
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/**
 * The warm start: teachers' corpus (`teacherCorpus`), tokenizer and fresh model, supervised epochs
 * (`trainEpochs`), the warm model's evaluation, then the directory with its record (`saveMageTiny`).
 */
export async function pretrainMageTiny(options: PretrainOptions): Promise<PretrainResult> {
  const started = performance.now();
  const log = options.log ?? (() => {});
  const plans = envPlans(options);
  const corpus = await teacherCorpus(plans, options, log);
  const tokenizer = buildMageTinyTokenizer(
    corpus.examples.flatMap((e) => [...e.messages.map((m) => m.content), e.response]),
    { envs: plans.map((p) => p.definition) },
  );
  const { config } = plans[0].layouts[0];
  const ws = config.warmStart;
  // The schedule is set once the step count is known.
  let schedule: LrSchedule = () => ws.lr;
  const learner = await createMageTiny(tokenizer, {
    memory: memoryLimitsOfConfig(config),
    seed: `${options.seed}/mage-tiny`,
    optimizer: { lr: (step) => schedule(step), weightDecay: 0.01 },
    ...(ws.model ? { size: ws.model } : {}),
    // Several transcripts per training row: few sessions, little padding; steps of `batchTokens` fill
    // rows of one fixed length, so that the epochs run on one session (architecture/learner.md).
    segmentRows: ws.batchTokens > 0 ? { rowLength: WARM_START_ROW_LENGTH } : true,
  });
  try {
    const set = trainingSet(corpus.examples, tokenizer, learner);
    const packedTokens = set.packed.reduce((n, p) => n + p.tokens.length, 0);
    log(
      `tokenizer: ${tokenizer.vocabSize} ids; model: ${countParams(learner.config)} parameters; ${set.rows} rows, ${set.tokens} tokens per epoch (packed: ${set.packed.length} sequences, ${packedTokens} tokens)`,
    );
    const plan = epochPlan(ws, set.packed, set.rows, options.seed, learner.segmentRun);
    schedule = warmStartSchedule(ws.lr, plan);
    const lossCurve = await trainEpochs(learner, plan, options, log);
    const envs =
      options.evalEpisodes === 0 ? [] : await evaluateWarmModel(learner.policy, plans, corpus, options);
    const seconds = (performance.now() - started) / 1000;
    const peakRssBytes = process.resourceUsage().maxRSS * 1024;
    const summary = { examples: set.rows, tokens: set.tokens, lossCurve, envs, seconds, peakRssBytes };
    await saveMageTiny(options.outDir, learner, tokenizer, warmStartRecord(options, ws, summary));
    options.onProgress?.({ phase: 'save', done: 1, total: 1 });
    return {
      dir: options.outDir,
      vocabSize: tokenizer.vocabSize,
      parameters: countParams(learner.config),
      ...summary,
    };
  } finally {
    await learner.dispose();
  }
}

/** The warm model against each env's in-domain opponents, with the reflexion memory and the env's K. */
async function evaluateWarmModel(
  policy: PolicyV1,
  plans: readonly EnvPlan[],
  corpus: TeacherCorpus,
  options: Pick<PretrainOptions, 'seed' | 'evalEpisodes' | 'signal' | 'onProgress'>,
): Promise<PretrainEnvResult[]> {
  const results: PretrainEnvResult[] = [];
  for (const { env, layouts } of plans) {
    throwIfAborted(options.signal);
    const c = layouts[0].config;
    const result = await evaluateMethod({
      env: createEnvById(env, c.env.options),
      policy,
      method: 'reflexion',
      opponents: c.eval.inDomain,
      episodes: options.evalEpisodes ?? c.eval.episodes,
      attempts: c.rollout.attempts,
      ...evalPlayOptions(c),
      seed: `${options.seed}/warm-start/eval/${env}`,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const o = result.metrics.overall;
    results.push({
      env,
      examples: corpus.examples.filter((e) => e.envId === env).length,
      legalMoveRate: 1 - o.invalidActionRate.rate,
      validReflectionRate: 1 - o.invalidReflectionRate.rate,
      ...(o.noteRecall === undefined ? {} : { noteRecall: o.noteRecall }),
      passAtK: o.perAttempt.map((a) => a.passAtK.rate),
      teacherPassAtK: corpus.teacherPass.get(env) ?? [],
    });
    options.onProgress?.({ phase: 'eval', done: results.length, total: plans.length });
  }
  return results;
}

/**
 * Below this note recall a warm start's notes are flagged. On Treasure a warm start at 61% copied the probe's
 * answer wrongly (south west noted as south east) and RL taught it no reading; at 95–100% it did
 * (docs/results/adaptation-from-scratch).
 */
const LOW_NOTE_RECALL = 0.8;

/**
 * A warning when the warm model's notes state less than `LOW_NOTE_RECALL` of what happened, else undefined.
 * A larger corpus (`warmStart.iterations`) made them faithful on Treasure and Doors, and twice the epochs
 * did on a Treasure seed where the larger corpus had not (docs/results).
 */
export function noteRecallWarning(e: PretrainEnvResult): string | undefined {
  if (e.noteRecall === undefined || e.noteRecall >= LOW_NOTE_RECALL) return undefined;
  return `warning: the ${e.env} warm start's notes state ${(100 * e.noteRecall).toFixed(0)}% of what happened in each attempt; RL cannot learn to read what they leave out or get wrong. A larger corpus (--set warmStart.iterations=…) or more epochs (--set warmStart.epochs=…) makes them more faithful.`;
}

/** The record `mage-tiny.json` keeps of how the weights were made (inputs and results of the warm start). */
function warmStartRecord(
  options: Pick<PretrainOptions, 'envs' | 'preset' | 'seed'>,
  ws: TrainConfig['warmStart'],
  summary: Pick<PretrainResult, 'examples' | 'tokens' | 'lossCurve' | 'envs' | 'seconds' | 'peakRssBytes'>,
): JsonObject {
  const record = {
    seed: options.seed,
    preset: options.preset,
    envs: [...options.envs],
    warmStart: { ...ws },
    examples: summary.examples,
    tokens: summary.tokens,
    lossCurve: summary.lossCurve,
    results: summary.envs,
    seconds: summary.seconds,
    peakRssBytes: summary.peakRssBytes,
  };
  return JSON.parse(JSON.stringify(record)) as JsonObject;
}

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
  };
}

export const DEFAULT_CACHE_DIR = '.mage-cache';

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

/** Where a warm start with these inputs is cached. */
export function warmStartDir(
  cacheDir: string,
  options: Pick<PretrainOptions, 'envs' | 'preset' | 'seed' | 'warmStart' | 'envOptions'>,
): string {
  return join(
    cacheDir,
    'mage-tiny',
    `${[...options.envs].sort().join('+')}-${options.preset}-${warmStartKey(options)}`,
  );
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
 * The warm start of `options`: the cache entry keyed by everything that makes it when it holds a finished
 * one (unless `force`), else pretrained into it (or into `outDir`).
 */
export async function pretrainOrReuse(
  options: PretrainOrReuseOptions,
): Promise<PretrainResult & { readonly cached: boolean }> {
  const { overrides, cacheDir, outDir, force, ...rest } = options;
  const spec = {
    envs: rest.envs,
    preset: rest.preset,
    seed: rest.seed,
    ...warmStartOverridesOf(overrides).inputs,
  };
  const dir = outDir ?? resolve(warmStartDir(cacheDir ?? DEFAULT_CACHE_DIR, spec));
  const cached = outDir === undefined && !force ? await cachedWarmStart(dir) : undefined;
  if (cached) return { ...cached, cached: true };
  return { ...(await pretrainMageTiny({ ...rest, ...spec, outDir: dir })), cached: false };
}
