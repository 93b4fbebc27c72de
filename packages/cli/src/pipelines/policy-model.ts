/**
 * The model a run starts from: a mage-tiny directory (`mage-tiny.json`) or a Hugging Face checkpoint
 * directory (`config.json` + `*.safetensors` + tokenizer files) of the Llama, Qwen2 or Qwen3 family.
 * Large Hugging Face models train LoRA adapters by default.
 */

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError, pathExists } from '@mage-rl/core';
import {
  type AdamWOptions,
  countParams,
  createOnnxLearner,
  importHfModel,
  type LoraOptions,
  loadHfTokenizer,
  type OnnxLearner,
} from '@mage-rl/learner';
import { loadMageTiny } from './mage-tiny';

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
}

/** A trainable learner for a mage-tiny or Hugging Face directory. */
export async function loadModel(dir: string, options: LoadModelOptions = {}): Promise<OnnxLearner> {
  if ((await modelKindOf(dir)) === 'mage-tiny') return loadMageTiny(dir, options);
  const model = await importHfModel(dir);
  const tokenizer = await loadHfTokenizer(dir);
  const big = countParams(model.config) > LORA_THRESHOLD_PARAMS;
  const lora =
    options.lora === undefined
      ? big
        ? DEFAULT_LORA
        : undefined
      : options.lora === true
        ? DEFAULT_LORA
        : options.lora || undefined;
  return createOnnxLearner({
    id: `hf:${String(model.hfConfig.model_type ?? model.config.architecture)}`,
    config: model.config,
    tokenizer,
    weights: model.weights,
    seed: options.seed ?? 0,
    ...(options.optimizer ? { optimizer: options.optimizer } : {}),
    ...(options.runner ? { runner: options.runner } : {}),
    ...(lora ? { lora } : {}),
  });
}
