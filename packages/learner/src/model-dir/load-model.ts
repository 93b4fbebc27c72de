/**
 * The model a run starts from: a mage-tiny directory (`mage-tiny.json`) or a Hugging Face checkpoint
 * directory (`config.json` + `*.safetensors` + tokenizer files) of the Llama, Qwen2 or Qwen3 family.
 * Large Hugging Face models train LoRA adapters by default.
 */

import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  CheckpointError,
  ConfigError,
  latestCheckpoint,
  pathExists,
  readJsonFile,
  readRunConfig,
  valueAt,
} from '@mage-rl/core';
import { importHfModel, loadHfTokenizer } from '../hf';
import { createOnnxLearner, type MemoryLimits, type OnnxLearner } from '../learner';
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
  });
}

/** A model loaded from a run or model directory, with what exporting or serving it needs. */
export interface LoadedModel {
  readonly learner: OnnxLearner;
  /** The model directory (a run's warm start), whose tokenizer files the model uses. */
  readonly modelDir: string;
  readonly kind: ModelKind;
  /** The learner's LoRA options (undefined: no adapters). */
  readonly lora: LoraOptions | undefined;
  /** The checkpoint loaded on top of the model directory's weights, if any. */
  readonly checkpointDir: string | undefined;
}

/** The model directory a run started from (`extra.warmStartDir` of its `config.json`). */
async function runWarmStart(dir: string): Promise<string> {
  const config = await readRunConfig(dir);
  // Runs written before `warmStartDir` existed recorded the directory under `warmStart`.
  const warm = valueAt(config, ['extra', 'warmStartDir']) ?? valueAt(config, ['extra', 'warmStart']);
  if (typeof warm !== 'string') {
    throw new ConfigError(`Run '${dir}' does not record its warm start; cannot rebuild its model.`, {
      path: 'run directory',
    });
  }
  return warm;
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
 * A run directory (its warm start with the latest checkpoint's weights and the checkpoint's LoRA
 * layout) or a model directory (mage-tiny or a Hugging Face checkpoint).
 */
export async function loadRunOrModel(spec: string, options: LoadModelOptions = {}): Promise<LoadedModel> {
  const dir = resolve(spec);
  const checkpoint = await latestCheckpoint(dir);
  const modelDir = checkpoint ? await runWarmStart(dir) : dir;
  const kind = await modelKindOf(modelDir);
  const loraOption =
    options.lora === undefined && checkpoint ? await checkpointLora(checkpoint.dir) : options.lora;
  const learner = await loadModel(modelDir, {
    ...options,
    ...(loraOption === undefined ? {} : { lora: loraOption }),
  });
  if (checkpoint) await learner.load(checkpoint.dir);
  const lora = kind === 'mage-tiny' ? mageTinyLora(loraOption) : loraOf(learner.config, loraOption);
  return { learner, modelDir, kind, lora, checkpointDir: checkpoint?.dir };
}
