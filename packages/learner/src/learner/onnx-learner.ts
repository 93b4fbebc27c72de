/**
 * `LearnerV1` + `PolicyV1` on onnxruntime: scoring and training graphs per (rows, length) bucket,
 * AdamW in TypeScript on weights that are graph inputs, sampling with the static KV buffer, atomic
 * checkpoints. Sessions live in a `GraphRunner` (a worker thread by default). This module composes
 * the parts: `params` (weights and their upload), `policy` (sampling), `scoring` and `update` (the
 * graphs of `graphs`, batched by `batching`), `checkpoint-io`.
 */

import {
  createRng,
  InvalidArgumentError,
  type LearnerV1,
  restoreRng,
  type SamplingOptions,
} from '@mage-rl/core';
import { type LoraOptions, mergeLora } from '../lora/lora';
import type { ModelConfig } from '../model/config';
import { isLargeVocab } from '../model/lm-head';
import type { ParamStore } from '../model/params';
import { type AdamWOptions, createAdamW } from '../optim/adamw';
import { createLocalRunner, createWorkerRunner, type GraphRunner } from '../runtime/runner';
import { createGenerator, type GeneratorStats } from '../sampling/generator';
import { DEFAULT_PREFIX_CACHE_BYTES } from '../sampling/prefix-cache';
import type { TokenizerV1 } from '../tokenizer/tokenizer';
import { bucketOf } from './batching';
import { loadCheckpointWeights, loadLearnerCheckpoint, saveLearnerCheckpoint } from './checkpoint-io';
import type { GraphContext } from './graphs';
import { createLearnerParams, handOverWeights, type LearnerParams, syncWeights } from './params';
import { createLearnerPolicy } from './policy';
import { seqOf, validateRows } from './rows';
import { createSampledResponses } from './sampled';
import { scoreSeqs } from './scoring';
import { type SegmentRunShape, segmentRunRows } from './segments';
import { type LearnerState, runUpdate, type UpdateContext } from './update';

export interface OnnxLearnerOptions {
  readonly id?: string;
  readonly config: ModelConfig;
  readonly tokenizer: TokenizerV1;
  /** Initial weights by HF name (default: random from `seed`). Copied, or taken with `inferenceOnly`. */
  readonly weights?: ReadonlyMap<string, Float32Array>;
  readonly seed?: number | string;
  readonly optimizer?: AdamWOptions;
  /** Where sessions run (default a worker thread). */
  readonly runner?: GraphRunner | 'worker' | 'local';
  /**
   * At most this many rows per graph run (default 8). Mini-batches are split into micro-batches of
   * similar lengths; a micro-batch has a power-of-two row count and stays within `microBatchTokens`.
   */
  readonly microBatchRows?: number;
  /**
   * Token budget of one graph run: rows × bucket length (default `microBatchRows` × 256). A sequence
   * longer than the budget runs alone.
   */
  readonly microBatchTokens?: number;
  /** Response length limit when neither the request nor the call sets one (default 64). */
  readonly defaultMaxTokens?: number;
  /** Default sampling (temperature 1, no top-k/top-p). */
  readonly sampling?: Omit<SamplingOptions, 'signal' | 'maxTokens'>;
  /**
   * The log-probs the learner samples, scores and trains are those of softmax(logits / this): set it to
   * the temperature rollouts sample at, so that a policy-gradient update treats samples as drawn from the
   * distribution they were drawn from (default 1; top-k and top-p are not folded in).
   */
  readonly logprobTemperature?: number;
  /** Train LoRA adapters instead of all weights. */
  readonly lora?: LoraOptions;
  /** Initial LoRA adapters (default: A random, B zero). */
  readonly adapters?: ReadonlyMap<string, Float32Array>;
  /**
   * Bytes of keys/values the policy keeps between `generate` calls, so that the next turn of a
   * transcript prefills only its new tokens (default `DEFAULT_PREFIX_CACHE_BYTES`, 256 MiB; 0 turns the
   * cache off). Saved keys/values are dropped when the weights change.
   */
  readonly prefixCacheBytes?: number;
  /**
   * Estimated bytes of the sessions the runner keeps (default `DEFAULT_MAX_SESSION_BYTES`, 1 GiB); only
   * for a runner the learner creates (`'worker'` or `'local'`), a given runner has its own.
   */
  readonly maxSessionBytes?: number;
  /** Rows one generation run holds at most (default `MAX_GENERATE_ROWS`, 64); larger calls run in chunks. */
  readonly maxGenerateRows?: number;
  /**
   * Compute the LM head only at the scored tokens, in row chunks (default: for vocabularies of at least
   * `LARGE_VOCAB_MIN` ids, where the head dominates the step; see architecture/learner.md).
   */
  readonly scoredHead?: boolean;
  /**
   * Scoring and training runs pack several sequences into each row, each attending only to itself and
   * sharing the prefix it has in common with an earlier sequence of its row (default `true`; `false` runs
   * one sequence per row, padded, in power-of-two row counts):
   * `true` — rows of the bucket length of the update's longest sequence, so an update's runs share one
   * or a few [rows, length] sessions and carry little padding; `{ rowLength }` — rows of up to that
   * many positions (rounded up to a bucket length) whatever the update holds, so that a caller whose
   * updates fill one run each (`OnnxLearner.segmentRun`, `fitsSegmentRun`) trains on one session.
   * Either way a run is as long as the bucket of its fullest row. Not with `scoredHead`. See
   * architecture/learner.md ("Segment rows").
   */
  readonly segmentRows?: boolean | { readonly rowLength: number };
  /**
   * The learner never trains (evaluation, serving, a reference model): default false. Its weights are
   * held once, by the runner: the given `weights` arrays are taken instead of copied and handed over
   * (`PersistentOptions.transfer`; a worker runner detaches them), and the learner keeps none, so
   * `weights` and `adapters` are empty and `update`, `save` and `mergedWeights` throw. `load` reads a
   * checkpoint's weights (not its optimizer state) and hands them over the same way. A training
   * learner keeps the weights for the optimizer and uploads copies after every step.
   */
  readonly inferenceOnly?: boolean;
}

export interface OnnxLearner extends LearnerV1 {
  readonly config: ModelConfig;
  readonly tokenizer: TokenizerV1;
  /**
   * Live weights (updated in place by `update`). Read them; change them only through `update` and
   * `load` (the learner tracks a weights version to know when sampled log-probs are still current).
   * Empty for an `inferenceOnly` learner (its runner holds them).
   */
  readonly weights: ParamStore;
  /** LoRA adapters (empty without LoRA, and for an `inferenceOnly` learner). */
  readonly adapters: ParamStore;
  /** Optimizer steps taken so far. */
  readonly step: number;
  /** Base weights with the LoRA adapters folded in (the base weights themselves without LoRA). */
  mergedWeights(): ParamStore;
  /** The policy's generation counters (prompt positions prefilled or reused, decode tokens, time). */
  generatorStats(): GeneratorStats;
  /**
   * With segment rows of a fixed length: the shape of one full training run. An update whose sequences
   * fit it (`fitsSegmentRun`) trains in one run.
   */
  readonly segmentRun?: SegmentRunShape;
}

/** What an `inferenceOnly` learner refuses to do: it holds no weights on this thread. */
const noWeights = (id: string, what: string) =>
  new InvalidArgumentError(
    `Learner '${id}' is inference-only (its runner holds the weights): it cannot ${what}. Load it without \`inferenceOnly\` to train.`,
  );

function resolveRunner(options: OnnxLearnerOptions): GraphRunner {
  const { runner, maxSessionBytes } = options;
  if (typeof runner === 'object') return runner;
  const runnerOptions = maxSessionBytes === undefined ? {} : { maxSessionBytes };
  return runner === 'local' ? createLocalRunner(runnerOptions) : createWorkerRunner(runnerOptions);
}

/** Where the learner's graphs run, for which model and parameters, in micro-batches of which size. */
function graphContext(options: OnnxLearnerOptions, runner: GraphRunner, params: LearnerParams): GraphContext {
  const rows = options.microBatchRows ?? 8;
  const { segmentRows = true } = options;
  const { maxPositions } = options.config;
  let segmentRowLength: number | undefined;
  if (typeof segmentRows === 'object') {
    const { rowLength } = segmentRows;
    if (!Number.isInteger(rowLength) || rowLength < 1 || rowLength > maxPositions) {
      throw new InvalidArgumentError(
        `segmentRows.rowLength must be an integer from 1 to maxPositions (${maxPositions}), got ${rowLength}.`,
      );
    }
    segmentRowLength = bucketOf(rowLength, maxPositions);
  }
  return {
    runner,
    config: options.config,
    lora: options.lora,
    trainable: params.trainSpecs.map((s) => s.name),
    limits: { rows, tokens: options.microBatchTokens ?? rows * 256, maxPositions },
    scoredHead: options.scoredHead ?? isLargeVocab(options.config.vocabSize),
    segmentRows: segmentRows !== false,
    ...(segmentRowLength === undefined ? {} : { segmentRowLength }),
    temperature: logprobTemperatureOf(options),
  };
}

/** The checked `logprobTemperature`. */
function logprobTemperatureOf(options: OnnxLearnerOptions): number {
  const t = options.logprobTemperature ?? 1;
  if (!Number.isFinite(t) || t <= 0) {
    throw new InvalidArgumentError(`logprobTemperature must be a positive number, got ${t}.`);
  }
  return t;
}

/** The shape of a full segment run of fixed-length rows (`OnnxLearner.segmentRun`). */
function segmentRunOf(ctx: GraphContext): SegmentRunShape | undefined {
  const rowLength = ctx.segmentRowLength;
  if (!ctx.segmentRows || ctx.scoredHead || rowLength === undefined) return undefined;
  return { rowLength, rows: segmentRunRows(ctx.limits, rowLength) };
}

/**
 * A learner on onnxruntime: initial weights (random from `seed` unless given) uploaded to the runner,
 * a policy that samples from them, and `update` / `logprobs` / `save` / `load` over the same parameters.
 */
export async function createOnnxLearner(options: OnnxLearnerOptions): Promise<OnnxLearner> {
  const { config, tokenizer, lora } = options;
  const id = options.id ?? `onnx-${config.architecture}`;
  if (tokenizer.vocabSize > config.vocabSize) {
    throw new InvalidArgumentError(
      `The tokenizer has ${tokenizer.vocabSize} ids but the model only ${config.vocabSize}.`,
    );
  }
  const inferenceOnly = options.inferenceOnly ?? false;
  const rng = createRng(options.seed ?? 0);
  const params = createLearnerParams(config, options, rng, inferenceOnly);
  const optimizerOptions: AdamWOptions = options.optimizer ?? { lr: 1e-4 };
  const state: LearnerState = { rng, optimizer: createAdamW(optimizerOptions) };
  const runner = resolveRunner(options);
  const graphs = graphContext(options, runner, params);
  const ctx: UpdateContext = { graphs, params, state, sampled: createSampledResponses() };
  const segmentRun = segmentRunOf(graphs);
  // Every upload but the optimizer's (`runUpdate` uploads the trained tensors after each step).
  const upload = () => (inferenceOnly ? handOverWeights(runner, params) : syncWeights(runner, params));
  await upload();
  const generator = createGenerator({
    config,
    runner,
    ...(lora === undefined ? {} : { graphOptions: { lora } }),
    prefixCache: {
      maxBytes: options.prefixCacheBytes ?? DEFAULT_PREFIX_CACHE_BYTES,
      weightsVersion: () => params.version,
    },
    ...(options.maxGenerateRows === undefined ? {} : { maxRows: options.maxGenerateRows }),
    logprobTemperature: graphs.temperature,
  });
  const policy = createLearnerPolicy({
    id,
    tokenizer,
    generator,
    maxPositions: config.maxPositions,
    defaultMaxTokens: options.defaultMaxTokens ?? 64,
    sampling: options.sampling ?? {},
    onSampled: (response) => ctx.sampled.record(response, params.version),
  });

  return {
    specificationVersion: 'v1',
    id,
    config,
    tokenizer,
    weights: params.weights,
    adapters: params.adapters,
    mergedWeights() {
      if (inferenceOnly) throw noWeights(id, 'return its weights');
      return lora === undefined
        ? new Map(params.weights)
        : mergeLora(config, lora, params.weights, params.adapters);
    },
    generatorStats: () => generator.stats(),
    ...(segmentRun === undefined ? {} : { segmentRun }),
    get step() {
      return state.optimizer.state.step;
    },
    policy,
    packedRows: { maxTokens: config.maxPositions + 1 },
    referenceAhead: true,
    async logprobs(rows) {
      validateRows(rows, config);
      return scoreSeqs(graphs, rows.map(seqOf));
    },
    update: (request) => (inferenceOnly ? Promise.reject(noWeights(id, 'update')) : runUpdate(ctx, request)),
    save: (dir) =>
      inferenceOnly
        ? Promise.reject(noWeights(id, 'save a checkpoint'))
        : saveLearnerCheckpoint(dir, {
            id,
            config,
            lora,
            params,
            optimizer: state.optimizer,
            rng: state.rng,
          }),
    async load(dir) {
      if (inferenceOnly) {
        const ck = await loadCheckpointWeights(dir, params);
        if (ck.rng !== undefined) state.rng = restoreRng(ck.rng);
        await upload();
        return;
      }
      const ck = await loadLearnerCheckpoint(dir, params);
      state.optimizer = createAdamW(optimizerOptions, ck.optimizer);
      if (ck.rng !== undefined) state.rng = restoreRng(ck.rng);
      await upload();
    },
    async dispose() {
      if (typeof options.runner !== 'object') await runner.dispose();
    },
  };
}
