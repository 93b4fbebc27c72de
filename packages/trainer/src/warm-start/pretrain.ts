/**
 * Building the supervised warm start of mage-tiny: non-exploiting teachers play meta-episodes through the
 * core runner in the exact prompt layout of RL; the tokenizer is built from what they saw and wrote;
 * mage-tiny learns their responses (cross-entropy on response tokens); then the warm model is evaluated
 * for its legal-move rate. Everything derives from the seed. Which warm start to build, and where, is
 * `warm-start.ts`'s.
 */

import { type JsonObject, type PolicyV1, throwIfAborted } from '@mage-rl/core';
import { countParams, createMageTiny, type LrSchedule, saveMageTiny } from '@mage-rl/learner';
import {
  createEnvById,
  evalPlayOptions,
  evaluateMethod,
  type RunPresetId,
  type TrainConfig,
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
  /**
   * A warm start made again (`warmStart.retryEpochs`, its notes recalled less than 80%): the first one's
   * epochs, evaluation and seconds (included in `seconds`).
   */
  readonly firstTry?: FirstTry;
}

/**
 * The row length of the warm start's training runs with `warmStart.batchTokens`: the laptop corpus's
 * transcripts are 134–501 tokens long, about two to a row.
 */
const WARM_START_ROW_LENGTH = 512;

/**
 * The warm start: teachers' corpus (`teacherCorpus`), tokenizer and fresh model, supervised epochs
 * (`trainEpochs`), the warm model's evaluation, then the directory with its record (`saveMageTiny`).
 */
export async function pretrainMageTiny(options: PretrainOptions): Promise<PretrainResult> {
  const first = await pretrainOnce(options);
  if (first.retryEpochs === undefined) return first.result;
  const low = first.result.envs
    .filter(lowNoteRecall)
    .map((e) => `${e.env} ${(100 * e.noteRecall).toFixed(0)}%`)
    .join(', ');
  options.log?.(
    `warm start: notes recall below ${100 * LOW_NOTE_RECALL}% (${low}); made again with ${first.retryEpochs} epochs (warmStart.retryEpochs)`,
  );
  return (
    await pretrainOnce(
      { ...options, warmStart: { ...options.warmStart, epochs: first.retryEpochs, retryEpochs: 0 } },
      { epochs: first.epochs, envs: first.result.envs, seconds: first.result.seconds },
    )
  ).result;
}

/** What a first warm start that was made again recorded: its epochs, evaluation and time. */
export interface FirstTry {
  readonly epochs: number;
  readonly envs: readonly PretrainEnvResult[];
  readonly seconds: number;
}

/**
 * One warm start. With `warmStart.retryEpochs` and notes that recall less than `LOW_NOTE_RECALL` on an env,
 * nothing is saved and `retryEpochs` says how many epochs to make it again with.
 */
async function pretrainOnce(
  options: PretrainOptions,
  firstTry?: FirstTry,
): Promise<{ result: PretrainResult; epochs: number; retryEpochs?: number }> {
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
    const seconds = (performance.now() - started) / 1000 + (firstTry?.seconds ?? 0);
    const peakRssBytes = process.resourceUsage().maxRSS * 1024;
    const summary = { examples: set.rows, tokens: set.tokens, lossCurve, envs, seconds, peakRssBytes };
    const result = {
      dir: options.outDir,
      vocabSize: tokenizer.vocabSize,
      parameters: countParams(learner.config),
      ...summary,
      ...(firstTry ? { firstTry } : {}),
    };
    const retry = ws.retryEpochs ?? 0;
    if (retry > 0 && envs.some(lowNoteRecall)) {
      return { result, epochs: ws.epochs, retryEpochs: retry };
    }
    await saveMageTiny(options.outDir, learner, tokenizer, warmStartRecord(options, ws, summary, firstTry));
    options.onProgress?.({ phase: 'save', done: 1, total: 1 });
    return { result, epochs: ws.epochs };
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

/** Whether the warm model's notes state less than `LOW_NOTE_RECALL` of what happened (false with no notes). */
const lowNoteRecall = (e: PretrainEnvResult): e is PretrainEnvResult & { readonly noteRecall: number } =>
  e.noteRecall !== undefined && e.noteRecall < LOW_NOTE_RECALL;

/**
 * A warning when the warm model's notes state less than `LOW_NOTE_RECALL` of what happened, else undefined.
 * A larger corpus (`warmStart.iterations`) made them faithful on Treasure and Doors, and twice the epochs
 * did on a Treasure seed where the larger corpus had not (docs/results).
 */
export function noteRecallWarning(e: PretrainEnvResult): string | undefined {
  if (!lowNoteRecall(e)) return undefined;
  return `warning: the ${e.env} warm start's notes state ${(100 * e.noteRecall).toFixed(0)}% of what happened in each attempt; RL cannot learn to read what they leave out or get wrong. A larger corpus (--set warmStart.iterations=…) or more epochs (--set warmStart.epochs=…) makes them more faithful.`;
}

/** The record `mage-tiny.json` keeps of how the weights were made (inputs and results of the warm start). */
function warmStartRecord(
  options: Pick<PretrainOptions, 'envs' | 'preset' | 'seed'>,
  ws: TrainConfig['warmStart'],
  summary: Pick<PretrainResult, 'examples' | 'tokens' | 'lossCurve' | 'envs' | 'seconds' | 'peakRssBytes'>,
  firstTry: FirstTry | undefined,
): JsonObject {
  const record = {
    // A warm start made again (`warmStart.retryEpochs`): the first one's epochs and evaluation.
    ...(firstTry ? { firstTry } : {}),
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
