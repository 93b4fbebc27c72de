/**
 * The supervised warm start of mage-tiny (`mage pretrain`): non-exploiting teachers play
 * meta-episodes through the core runner in the exact prompt layout of RL; the tokenizer is built from
 * what they saw and wrote; mage-tiny learns their responses (cross-entropy on response tokens); then the
 * warm model is evaluated for its legal-move rate. Everything derives from the seed.
 */

import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { LearnerRowV1, PackedRowV1 } from '@mage-rl/core';
import {
  ConfigError,
  createRng,
  InvalidArgumentError,
  type JsonObject,
  packRows,
  throwIfAborted,
} from '@mage-rl/core';
import { weightedNllLoss } from '@mage-rl/gigpo';
import { countParams, createLrSchedule, type LrSchedule } from '@mage-rl/learner';
import {
  buildWarmStartCorpus,
  createEnvById,
  envDefinition,
  envRegistry,
  evaluateMethod,
  memoryOf,
  opponentFactory,
  populationOf,
  RUN_PRESETS,
  type RunPresetId,
  resolveTrainConfig,
  type TrainConfig,
  type WarmStartExample,
} from '@mage-rl/recipes';
import { buildMageTinyTokenizer, createMageTiny, saveMageTiny } from './mage-tiny';

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
  /** Meta-episodes per opponent for the legal-move check. Default: the preset's `eval.episodes`. */
  readonly evalEpisodes?: number;
  /** Overrides of the preset's `warmStart` numbers. */
  readonly warmStart?: Partial<TrainConfig['warmStart']>;
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
}

/** The warm-start memory layouts every method trains with: reflection (K = 3) and none (K = 1). */
const FORMATS = [
  { method: 'mage', tag: 'reflection' },
  { method: 'grpo', tag: 'none' },
] as const;

/** A key of everything that determines a warm start (for caching). */
export function warmStartKey(
  options: Pick<PretrainOptions, 'envs' | 'preset' | 'seed' | 'warmStart'>,
): string {
  // The preset's warm-start numbers are part of the key: changing a preset must not reuse old weights.
  // Envs from packages add the package they came from.
  const registry = envRegistry();
  const packages = [...options.envs].sort().flatMap((env) => {
    const source = registry.packageOf(env);
    return source === undefined ? [] : [`${env}=${source}`];
  });
  const text = JSON.stringify({
    v: 3,
    envs: [...options.envs].sort(),
    preset: options.preset,
    seed: options.seed,
    ws: { ...RUN_PRESETS[options.preset].warmStart, ...options.warmStart },
    ...(packages.length > 0 ? { packages } : {}),
  });
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

export async function pretrainMageTiny(options: PretrainOptions): Promise<PretrainResult> {
  const started = performance.now();
  const log = options.log ?? (() => {});
  if (options.envs.length === 0) throw new InvalidArgumentError('pretrain needs at least one env.');
  const definitions = options.envs.map((env) => envDefinition(env));
  for (const d of definitions) {
    if (!d.warmStart) {
      throw new ConfigError(
        `Env '${d.id}' has no warm-start teacher (its definition has no warmStart), so mage-tiny cannot be warm-started on it. Start from a model of your own with --model <dir> (a mage-tiny or Hugging Face checkpoint directory), or add warmStart (a teacher and the words of its compact text) to its definition.`,
        { path: 'warmStart', context: { env: d.id } },
      );
    }
  }
  const configs = options.envs.map((env) => ({
    env,
    formats: FORMATS.map((f) => ({
      ...f,
      config: resolveTrainConfig(
        { seed: options.seed, ...(options.warmStart ? { warmStart: options.warmStart } : {}) },
        { preset: options.preset, method: f.method, env },
      ),
    })),
  }));

  // 1. Corpus: teachers through the runner, in every layout the methods use.
  const examples: WarmStartExample[] = [];
  const teacherPass = new Map<string, number[]>();
  let formatIndex = 0;
  const totalFormats = configs.length * FORMATS.length;
  for (const { env, formats } of configs) {
    for (const f of formats) {
      throwIfAborted(options.signal);
      const c = f.config;
      const ws = c.warmStart;
      const population = populationOf(c);
      const makeOpponent = opponentFactory(env);
      const corpus = await buildWarmStartCorpus({
        env: createEnvById(env, c.env.options),
        population,
        makeOpponent,
        groups: ws.groups,
        groupSize: ws.groupSize,
        iterations: ws.iterations,
        attempts: c.rollout.attempts,
        memory: memoryOf(c),
        context: c.rollout.context,
        style: c.rollout.style,
        seats: c.rollout.seats,
        seed: `${options.seed}/warm-start/${env}/${f.tag}`,
        teacherOptions: { noise: ws.noise, mistakes: ws.mistakes },
        ...(options.signal ? { signal: options.signal } : {}),
      });
      examples.push(...corpus.examples.filter((e) => e.valid));
      if (f.tag === 'reflection') {
        teacherPass.set(
          env,
          corpus.metrics.overall.perAttempt.map((a) => a.passAtK.rate),
        );
      }
      options.onProgress?.({ phase: 'corpus', done: ++formatIndex, total: totalFormats });
      log(`corpus ${env}/${f.tag}: ${corpus.examples.length} examples`);
    }
  }

  // 2. Tokenizer and model.
  const tokenizer = buildMageTinyTokenizer(
    examples.flatMap((e) => [...e.messages.map((m) => m.content), e.response]),
    { envs: definitions },
  );
  const first = configs[0]?.formats[0]?.config as TrainConfig;
  const ws = first.warmStart;
  // Warm-up then cosine decay to a tenth of `lr` over the whole run (set once the step count is known).
  let schedule: LrSchedule = () => ws.lr;
  const learner = await createMageTiny(tokenizer, {
    seed: `${options.seed}/mage-tiny`,
    optimizer: { lr: (step) => schedule(step), weightDecay: 0.01 },
  });
  try {
    const eos = tokenizer.eosTokenIds[0] as number;
    const maxPositions = learner.config.maxPositions;
    const rows: LearnerRowV1[] = [];
    const slots: string[] = [];
    let tokens = 0;
    for (const e of examples) {
      const promptTokens = tokenizer.encodeChat(e.messages);
      const responseTokens = [...tokenizer.encode(e.response), eos];
      if (promptTokens.length + responseTokens.length > maxPositions) continue;
      rows.push({
        promptTokens,
        responseTokens,
        oldLogprobs: new Array(responseTokens.length).fill(0),
        advantage: 1,
      });
      slots.push(`${e.envId}/${e.iteration}/${e.slot}`);
      tokens += promptTokens.length + responseTokens.length;
    }
    // One sequence per slot where the turns extend each other (transcript layout): each example of a
    // slot comes after the previous one in the corpus, so `packRows` merges them into spans.
    const packed = packRows(rows, {
      maxTokens: learner.packedRows?.maxTokens ?? maxPositions,
      groupOf: (_, i) => slots[i] as string,
    }).rows.filter((p) => p.spans.length > 0);
    const packedTokens = packed.reduce((n, p) => n + p.tokens.length, 0);
    log(
      `tokenizer: ${tokenizer.vocabSize} ids; model: ${countParams(learner.config)} parameters; ${rows.length} rows, ${tokens} tokens per epoch (packed: ${packed.length} sequences, ${packedTokens} tokens)`,
    );

    // 3. Supervised training: shuffled mini-batches of `batchRows` turns (spans), a loss point per chunk.
    const loss = weightedNllLoss();
    const batch = Math.max(1, ws.batchRows);
    const chunk = batch * 4;
    const stepsPerEpoch = Math.ceil(rows.length / batch);
    const totalSteps = stepsPerEpoch * ws.epochs;
    const warmupSteps = Math.min(20, Math.floor(totalSteps / 10));
    schedule = createLrSchedule({
      lr: ws.lr,
      warmupSteps,
      totalSteps: Math.max(totalSteps, warmupSteps + 1),
      decay: 'cosine',
    });
    const rng = createRng(`${options.seed}/warm-start/shuffle`);
    const lossCurve: { step: number; loss: number }[] = [];
    let step = 0;
    for (let epoch = 0; epoch < ws.epochs; epoch++) {
      const order = rng.split(`epoch-${epoch}`).shuffle(packed.slice());
      for (let i = 0; i < order.length; ) {
        throwIfAborted(options.signal);
        const part: PackedRowV1[] = [];
        for (let spans = 0; i < order.length && spans < chunk; i++) {
          const p = order[i] as PackedRowV1;
          part.push(p);
          spans += p.spans.length;
        }
        const r = await learner.update({
          rows: part,
          loss,
          epochs: 1,
          miniBatchRows: batch,
          ...(options.signal ? { signal: options.signal } : {}),
        });
        step += r.steps + r.skippedSteps;
        if (Number.isFinite(r.loss)) lossCurve.push({ step, loss: r.loss });
        options.onProgress?.({
          phase: 'train',
          done: Math.min(step, totalSteps),
          total: totalSteps,
          loss: r.loss,
        });
      }
      log(`epoch ${epoch + 1}/${ws.epochs}: loss ${lossCurve.at(-1)?.loss.toFixed(4) ?? 'n/a'}`);
    }

    // 4. The warm model's legal-move rate (and success) against each env's training population.
    const envResults: PretrainEnvResult[] = [];
    let evalDone = 0;
    for (const { env, formats } of configs) {
      throwIfAborted(options.signal);
      const c = (formats[0] as { config: TrainConfig }).config;
      const opponents = c.eval.inDomain;
      const result = await evaluateMethod({
        env: createEnvById(env, c.env.options),
        policy: learner.policy,
        method: 'reflexion',
        opponents,
        episodes: options.evalEpisodes ?? c.eval.episodes,
        attempts: c.rollout.attempts,
        context: c.rollout.context,
        style: c.rollout.style,
        seats: c.rollout.seats,
        maxTokens: c.rollout.maxTokens,
        sampling: {
          temperature: c.eval.temperature,
          topP: c.eval.topP,
          ...(c.eval.topK > 0 ? { topK: c.eval.topK } : {}),
        },
        seed: `${options.seed}/warm-start/eval/${env}`,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const o = result.metrics.overall;
      envResults.push({
        env,
        examples: examples.filter((e) => e.envId === env).length,
        legalMoveRate: 1 - o.invalidActionRate.rate,
        validReflectionRate: 1 - o.invalidReflectionRate.rate,
        passAtK: o.perAttempt.map((a) => a.passAtK.rate),
        teacherPassAtK: teacherPass.get(env) ?? [],
      });
      options.onProgress?.({ phase: 'eval', done: ++evalDone, total: configs.length });
    }

    // 5. Save.
    const seconds = (performance.now() - started) / 1000;
    const record = {
      seed: options.seed,
      preset: options.preset,
      envs: [...options.envs],
      warmStart: { ...ws },
      examples: rows.length,
      tokens,
      lossCurve,
      results: envResults,
      seconds,
    };
    await saveMageTiny(options.outDir, learner, tokenizer, JSON.parse(JSON.stringify(record)) as JsonObject);
    options.onProgress?.({ phase: 'save', done: 1, total: 1 });
    return {
      dir: options.outDir,
      vocabSize: tokenizer.vocabSize,
      parameters: countParams(learner.config),
      examples: rows.length,
      tokens,
      lossCurve,
      envs: envResults,
      seconds,
    };
  } finally {
    await learner.dispose();
  }
}

export const DEFAULT_CACHE_DIR = '.mage-cache';

/** Where a warm start with these inputs is cached. */
export function warmStartDir(
  cacheDir: string,
  options: Pick<PretrainOptions, 'envs' | 'preset' | 'seed' | 'warmStart'>,
): string {
  return join(
    cacheDir,
    'mage-tiny',
    `${[...options.envs].sort().join('+')}-${options.preset}-${warmStartKey(options)}`,
  );
}
