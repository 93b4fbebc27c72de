/**
 * The model a run starts from: a mage-tiny directory (`mage-tiny.json`) or a Hugging Face checkpoint
 * directory (`config.json` + `*.safetensors` + tokenizer files) of the Llama, Qwen2 or Qwen3 family.
 * Large Hugging Face models train LoRA adapters by default.
 */

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError, pathExists, readJsonFile } from '@mage-rl/core';
import { importHfModel, loadHfTokenizer } from '../hf';
import { createOnnxLearner, type MemoryLimits, type OnnxLearner, type OnnxLearnerOptions } from '../learner';
import type { LoraOptions } from '../lora';
import { countParams, type ModelConfig } from '../model';
import type { AdamWOptions } from '../optim';
import { parseWordLevelTokenizer, type TokenizerV1 } from '../tokenizer';
import { learnerMemoryOptions, loadMageTiny } from './mage-tiny-dir';

/** Hugging Face models above this many parameters train LoRA adapters unless told otherwise. */
export const LORA_THRESHOLD_PARAMS = 20_000_000;
export const DEFAULT_LORA: LoraOptions = { rank: 8, alpha: 16 };

export type ModelKind = 'mage-tiny' | 'hugging-face';

export async function modelKindOf(dir: string): Promise<ModelKind> {
  if (await pathExists(join(dir, 'mage-tiny.json'))) return 'mage-tiny';
  if (await pathExists(join(dir, 'config.json'))) {
    const files = await readdir(dir);
    if (files.some((f) => f.endsWith('.safetensors'))) return 'hugging-face';
  }
  throw new CheckpointError(
    `'${dir}' is neither a mage-tiny directory (mage-tiny.json) nor a Hugging Face checkpoint (config.json + *.safetensors).`,
    { code: 'MODEL_FORMAT', context: { dir } },
  );
}

export interface LoadModelOptions {
  readonly seed?: number | string;
  readonly optimizer?: AdamWOptions;
  readonly runner?: 'worker' | 'local';
  /** `true`/`false` force LoRA on or off for Hugging Face models; default: on above the threshold. */
  readonly lora?: boolean | LoraOptions;
  /** Session cache, prefix cache and generation chunk (`memoryLimitsOf` of the run's `memory.budget`). */
  readonly memory?: MemoryLimits;
  /**
   * For a process that only samples or scores (`OnnxLearnerOptions.inferenceOnly`): the weights are
   * held once, by the runner, and the learner cannot train, save or merge.
   */
  readonly inferenceOnly?: boolean;
  /** The temperature of its log-probs (`OnnxLearnerOptions.logprobTemperature`; default 1). */
  readonly logprobTemperature?: number;
  /** Scoring and training runs of several sequences per row (`OnnxLearnerOptions.segmentRows`). */
  readonly segmentRows?: OnnxLearnerOptions['segmentRows'];
}

/** The LoRA options `loadModel` gives a Hugging Face model of `config` (undefined: full fine-tuning). */
export function loraOf(config: ModelConfig, option: LoadModelOptions['lora']): LoraOptions | undefined {
  if (option === undefined) return countParams(config) > LORA_THRESHOLD_PARAMS ? DEFAULT_LORA : undefined;
  return option === true ? DEFAULT_LORA : option || undefined;
}

/** mage-tiny trains all weights unless LoRA is asked for. */
const mageTinyLora = (option: LoadModelOptions['lora']): LoraOptions | undefined =>
  option === true ? DEFAULT_LORA : option || undefined;

/**
 * The tokenizer of a Hugging Face directory: mage's word-level tokenizer when `tokenizer.json` is one
 * (an exported mage-tiny; its own encoder keeps ids exact, see architecture/learner.md), else
 * transformers.js' tokenizer.
 */
async function hfDirTokenizer(dir: string): Promise<TokenizerV1> {
  const path = join(dir, 'tokenizer.json');
  if (await pathExists(path)) {
    const text = await readFile(path, 'utf8');
    if (text.includes('"WordLevel"')) {
      try {
        return parseWordLevelTokenizer(text);
      } catch {
        // A WordLevel tokenizer not written by mage: transformers.js reads it.
      }
    }
  }
  return loadHfTokenizer(dir);
}

/** A trainable learner (or an inference-only one) for a mage-tiny or Hugging Face directory. */
export async function loadModel(dir: string, options: LoadModelOptions = {}): Promise<OnnxLearner> {
  if ((await modelKindOf(dir)) === 'mage-tiny') {
    const lora = mageTinyLora(options.lora);
    return loadMageTiny(dir, {
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      ...(options.optimizer ? { optimizer: options.optimizer } : {}),
      ...(options.runner ? { runner: options.runner } : {}),
      ...(lora ? { lora } : {}),
      ...(options.memory ? { memory: options.memory } : {}),
      ...(options.inferenceOnly === undefined ? {} : { inferenceOnly: options.inferenceOnly }),
      ...(options.logprobTemperature === undefined ? {} : { logprobTemperature: options.logprobTemperature }),
      ...(options.segmentRows === undefined ? {} : { segmentRows: options.segmentRows }),
    });
  }
  const model = await importHfModel(dir);
  const tokenizer = await hfDirTokenizer(dir);
  const lora = loraOf(model.config, options.lora);
  return createOnnxLearner({
    id: `hf:${String(model.hfConfig.model_type ?? model.config.architecture)}`,
    config: model.config,
    tokenizer,
    weights: model.weights,
    seed: options.seed ?? 0,
    ...(options.optimizer ? { optimizer: options.optimizer } : {}),
    ...(options.runner ? { runner: options.runner } : {}),
    ...(lora ? { lora } : {}),
    ...(options.memory ? learnerMemoryOptions(options.memory) : {}),
    ...(options.inferenceOnly === undefined ? {} : { inferenceOnly: options.inferenceOnly }),
    ...(options.logprobTemperature === undefined ? {} : { logprobTemperature: options.logprobTemperature }),
    ...(options.segmentRows === undefined ? {} : { segmentRows: options.segmentRows }),
  });
}

/**
 * Where a model's weights come from: a model directory, and the learner checkpoint whose weights (and LoRA
 * layout) are loaded over the directory's, if any. A run directory is the trainer's to resolve: its warm
 * start and its latest checkpoint (`modelSourceOf` in `@mage-rl/trainer`).
 */
export interface ModelSourceV1 {
  /** A mage-tiny or Hugging Face directory, whose tokenizer files the model uses. */
  readonly modelDir: string;
  /** A checkpoint written by `learner.save` (`checkpoint.json` and the weights). */
  readonly checkpointDir?: string;
}

/** A model loaded from a model source, with what exporting or serving it needs. */
export interface LoadedModel {
  readonly learner: OnnxLearner;
  /** The model directory whose tokenizer files the model uses. */
  readonly modelDir: string;
  readonly kind: ModelKind;
  /** The learner's LoRA options (undefined: no adapters). */
  readonly lora: LoraOptions | undefined;
  /** The checkpoint loaded on top of the model directory's weights, if any. */
  readonly checkpointDir: string | undefined;
}

/** The LoRA options a learner checkpoint records (`checkpoint.json` metadata); false when it has none. */
async function checkpointLora(dir: string): Promise<LoraOptions | false> {
  const meta = (await readJsonFile(join(dir, 'checkpoint.json'))) as {
    metadata?: { lora?: { rank?: unknown; alpha?: unknown; targets?: unknown } | null };
  };
  const l = meta.metadata?.lora;
  if (l === null || l === undefined || typeof l.rank !== 'number') return false;
  const targets =
    Array.isArray(l.targets) && l.targets.length > 0 ? (l.targets as LoraOptions['targets']) : undefined;
  return {
    rank: l.rank,
    ...(typeof l.alpha === 'number' ? { alpha: l.alpha } : {}),
    ...(targets ? { targets } : {}),
  };
}

/**
 * The model of `source`: its directory (mage-tiny or a Hugging Face checkpoint) with the checkpoint's
 * weights and LoRA layout over it when there is one.
 */
export async function loadModelSource(
  source: ModelSourceV1,
  options: LoadModelOptions = {},
): Promise<LoadedModel> {
  const { modelDir, checkpointDir } = source;
  const kind = await modelKindOf(modelDir);
  const loraOption =
    options.lora === undefined && checkpointDir !== undefined
      ? await checkpointLora(checkpointDir)
      : options.lora;
  const learner = await loadModel(modelDir, {
    ...options,
    ...(loraOption === undefined ? {} : { lora: loraOption }),
  });
  if (checkpointDir !== undefined) await learner.load(checkpointDir);
  const lora = kind === 'mage-tiny' ? mageTinyLora(loraOption) : loraOf(learner.config, loraOption);
  return { learner, modelDir, kind, lora, checkpointDir };
}
