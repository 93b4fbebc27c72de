/**
 * `mage export`: a model (a model directory, with a run's checkpoint over it) written out as a Hugging Face
 * directory (`hf`: config, generation config, `model.safetensors` or shards with their index, tokenizer
 * files with the chat template; LoRA merged), the transformers.js layout (`onnx`: the same configs and
 * tokenizer with `onnx/model.onnx`), or, with `adapter`, a PEFT LoRA adapter (`adapter_config.json` +
 * `adapter_model.safetensors`).
 */

import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError, pathExists } from '@mage-rl/core';
import type { WritableDType } from '../checkpoint';
import { exportHfModel, exportPeftAdapter } from '../hf';
import { countParams } from '../model';
import { type LoadedModel, loadModelSource, type ModelSourceV1 } from './load-model';

export const EXPORT_FORMATS = ['hf', 'onnx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Tokenizer files a Hugging Face directory may hold; the ones present are copied. */
export const TOKENIZER_FILES = [
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'added_tokens.json',
  'vocab.json',
  'merges.txt',
  'tokenizer.model',
  'chat_template.jinja',
  'chat_template.json',
] as const;

export interface ExportModelOptions {
  /** A model directory (mage-tiny or Hugging Face), with a checkpoint's weights over it (a run's). */
  readonly source: ModelSourceV1;
  readonly out: string;
  readonly format: ExportFormat;
  /** Write the LoRA adapter alone, in PEFT's layout, instead of merged weights. */
  readonly adapter?: boolean;
  /**
   * `hf` only: the largest safetensors shard in bytes (default 5 GB, as Hugging Face): larger weights
   * are written as `model-0000k-of-0000n.safetensors` with `model.safetensors.index.json`.
   */
  readonly maxShardBytes?: number;
  /** `hf` only: the stored dtype of the weights (default F32; BF16 and F16 round to nearest even). */
  readonly dtype?: WritableDType;
}

export interface ExportModelResult {
  /** The directory written (absolute). */
  readonly out: string;
  readonly format: ExportFormat | 'peft';
  readonly files: readonly string[];
  readonly parameters: number;
  /** The model directory the weights started from (absolute, like every path here). */
  readonly modelDir: string;
  /** The run's checkpoint the weights come from (absolute); null for a model directory. */
  readonly checkpointDir: string | null;
}

/** The tokenizer files of the model directory, by name. */
async function tokenizerFilesOf(modelDir: string): Promise<Record<string, Uint8Array>> {
  const out: Record<string, Uint8Array> = {};
  for (const name of TOKENIZER_FILES) {
    const path = join(modelDir, name);
    if (await pathExists(path)) out[name] = await readFile(path);
  }
  return out;
}

/** The source directory's `generation_config.json` fields, if it has one. */
async function generationOf(modelDir: string): Promise<Record<string, unknown>> {
  const path = join(modelDir, 'generation_config.json');
  if (!(await pathExists(path))) return {};
  const v = JSON.parse(await readFile(path, 'utf8')) as unknown;
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

async function writeAdapter(loaded: LoadedModel, out: string): Promise<ExportModelResult> {
  const { learner, lora } = loaded;
  if (lora === undefined || learner.adapters.size === 0) {
    throw new ConfigError(
      `'${loaded.modelDir}' has no LoRA adapters to export; drop \`adapter\` to export the full weights.`,
      { path: 'adapter' },
    );
  }
  await exportPeftAdapter({
    dir: out,
    config: learner.config,
    lora,
    adapters: learner.adapters,
    baseModel: loaded.modelDir,
  });
  let parameters = 0;
  for (const a of learner.adapters.values()) parameters += a.length;
  return {
    out,
    format: 'peft',
    files: ['adapter_config.json', 'adapter_model.safetensors'],
    parameters,
    ...sourceDirs(loaded),
  };
}

/** Where the exported weights came from, as absolute paths (`out` is one too). */
const sourceDirs = (loaded: LoadedModel): Pick<ExportModelResult, 'modelDir' | 'checkpointDir'> => ({
  modelDir: resolve(loaded.modelDir),
  checkpointDir: loaded.checkpointDir === undefined ? null : resolve(loaded.checkpointDir),
});

/** Loads the source, writes the export atomically into `out` and says what it wrote. */
export async function exportModel(options: ExportModelOptions): Promise<ExportModelResult> {
  const out = resolve(options.out);
  if (options.format !== 'hf' || options.adapter) {
    // Refused rather than ignored: the ONNX model and PEFT adapters are written whole in float32.
    const flag =
      options.maxShardBytes !== undefined
        ? 'maxShardBytes (--max-shard-size)'
        : options.dtype !== undefined
          ? 'dtype (--dtype)'
          : undefined;
    if (flag !== undefined) {
      throw new ConfigError(
        `${flag} applies to the hf format's merged weights only; the ONNX model and PEFT adapters are written whole in float32.`,
        { path: flag },
      );
    }
  }
  const loaded = await loadModelSource(options.source, { runner: 'local' });
  try {
    if (options.adapter) return await writeAdapter(loaded, out);
    const { learner, modelDir } = loaded;
    const tokenizerFiles = await tokenizerFilesOf(modelDir);
    const onnx = options.format === 'onnx';
    const written = await exportHfModel({
      dir: out,
      config: learner.config,
      weights: learner.mergedWeights(),
      tokenizerFiles,
      generation: await generationOf(modelDir),
      files: { safetensors: !onnx, onnx },
      safetensors: {
        ...(options.maxShardBytes === undefined ? {} : { maxShardBytes: options.maxShardBytes }),
        ...(options.dtype === undefined ? {} : { dtype: options.dtype }),
      },
    });
    return {
      out,
      format: options.format,
      files: written.files,
      parameters: countParams(learner.config),
      ...sourceDirs(loaded),
    };
  } finally {
    await loaded.learner.dispose();
  }
}
