/**
 * Hugging Face directories: import `config.json` + `*.safetensors` (fp32/fp16/bf16, sharded or not)
 * and export a directory that transformers.js' `AutoModelForCausalLM.from_pretrained('./dir')` loads
 * (`config.json`, `generation_config.json`, `onnx/model.onnx`, tokenizer files) and that this module
 * imports again (`model.safetensors`).
 */

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError } from '@mage-rl/core';
import { writeFilesAtomic } from '../checkpoint/checkpoint';
import {
  readSafetensorsFile,
  serializeSafetensors,
  type TensorToWrite,
  toFloat32,
} from '../checkpoint/safetensors';
import type { ModelConfig } from '../model/config';
import { type ParamStore, paramSpecs } from '../model/params';
import { serializeExportModel } from './export-graph';
import { fromHfConfig, toHfConfig } from './hf-config';

export interface HfModel {
  readonly config: ModelConfig;
  readonly weights: ParamStore;
  /** The raw `config.json`. */
  readonly hfConfig: Record<string, unknown>;
}

async function readJson(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw new CheckpointError(`Cannot read ${path}.`, { code: 'MODEL_FORMAT', cause, context: { path } });
  }
  try {
    const v = JSON.parse(text);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
    return v;
  } catch (cause) {
    throw new CheckpointError(`${path} is not a JSON object.`, {
      code: 'MODEL_FORMAT',
      cause,
      context: { path },
    });
  }
}

/** Reads a Hugging Face model directory (weights converted to float32, names checked against the config). */
export async function importHfModel(dir: string): Promise<HfModel> {
  const hfConfig = await readJson(join(dir, 'config.json'));
  const config = fromHfConfig(hfConfig);
  const files = (await readdir(dir)).filter((f) => f.endsWith('.safetensors')).sort();
  if (files.length === 0)
    throw new CheckpointError(`${dir} has no *.safetensors file.`, { code: 'MODEL_FORMAT' });
  const found = new Map<string, { data: Float32Array; shape: readonly number[] }>();
  for (const f of files) {
    const file = await readSafetensorsFile(join(dir, f));
    for (const [name, entry] of file.tensors) {
      const key = name.startsWith('model.') || name === 'lm_head.weight' ? name : `model.${name}`;
      found.set(key, { data: toFloat32(entry, name), shape: entry.shape });
    }
  }
  const weights: ParamStore = new Map();
  for (const s of paramSpecs(config)) {
    const t = found.get(s.name);
    if (t === undefined) {
      throw new CheckpointError(`${dir}: the weights lack '${s.name}'.`, {
        code: 'MODEL_FORMAT',
        context: { name: s.name },
      });
    }
    if (t.shape.length !== s.shape.length || t.shape.some((d, i) => d !== s.shape[i])) {
      throw new CheckpointError(
        `${dir}: '${s.name}' has shape [${t.shape.join(', ')}], the config needs [${s.shape.join(', ')}].`,
        { code: 'MODEL_FORMAT' },
      );
    }
    weights.set(s.name, t.data);
  }
  return { config, weights, hfConfig };
}

export interface ExportHfOptions {
  readonly dir: string;
  readonly config: ModelConfig;
  readonly weights: ReadonlyMap<string, Float32Array>;
  /** Tokenizer files to include (`tokenizer.json`, `tokenizer_config.json`, …): name → contents. */
  readonly tokenizerFiles?: Readonly<Record<string, string | Uint8Array>>;
  /** Extra `generation_config.json` fields. */
  readonly generation?: Readonly<Record<string, unknown>>;
  /**
   * Which weight files to write (default both): `model.safetensors` (Hugging Face transformers, and
   * `importHfModel`) and `onnx/model.onnx` (transformers.js).
   */
  readonly files?: { readonly safetensors?: boolean; readonly onnx?: boolean };
}

/** Writes a Hugging Face / transformers.js directory atomically. */
export async function exportHfModel(options: ExportHfOptions): Promise<void> {
  const { config: c, weights } = options;
  const files = new Map<string, string | Uint8Array>();
  const tensors = new Map<string, TensorToWrite>();
  for (const s of paramSpecs(c)) {
    const w = weights.get(s.name);
    if (w === undefined) throw new CheckpointError(`exportHfModel: no weight '${s.name}'.`);
    tensors.set(s.name, { data: w, shape: s.shape });
  }
  files.set('config.json', `${JSON.stringify(toHfConfig(c), null, 2)}\n`);
  files.set(
    'generation_config.json',
    `${JSON.stringify({ ...(c.bosTokenId === undefined ? {} : { bos_token_id: c.bosTokenId }), ...(c.eosTokenId === undefined ? {} : { eos_token_id: c.eosTokenId }), ...options.generation }, null, 2)}\n`,
  );
  if (options.files?.safetensors !== false)
    files.set('model.safetensors', serializeSafetensors(tensors, { format: 'pt' }));
  if (options.files?.onnx !== false) files.set('onnx/model.onnx', serializeExportModel(c, weights));
  for (const [name, content] of Object.entries(options.tokenizerFiles ?? {})) files.set(name, content);
  await writeFilesAtomic(options.dir, files);
}
