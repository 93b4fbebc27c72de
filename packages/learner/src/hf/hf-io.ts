/**
 * Hugging Face directories: import `config.json` + `*.safetensors` (fp32/fp16/bf16, sharded or not)
 * and export a directory that transformers.js' `AutoModelForCausalLM.from_pretrained('./dir')` loads
 * (`config.json`, `generation_config.json`, `onnx/model.onnx`, tokenizer files) and that this module
 * imports again (`model.safetensors`, or shards with `model.safetensors.index.json` above the largest
 * shard size).
 */

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError, MageError, writeDirAtomic, writeFileAtomic } from '@mage-rl/core';
import { FLOAT_DTYPE_BYTES } from '../checkpoint/float-formats';
import {
  readSafetensorsFloat32,
  type SafetensorsIoOptions,
  type TensorToWrite,
  type WritableDType,
  writeSafetensorsFile,
} from '../checkpoint/safetensors';
import type { ModelConfig } from '../model/config';
import { type ParamStore, paramSpecs } from '../model/params';
import { serializeExportModel } from './export-graph';
import { fromHfConfig, toHfConfig } from './hf-config';
import {
  DEFAULT_MAX_SHARD_BYTES,
  formatShardIndex,
  planShards,
  readShardIndex,
  SAFETENSORS_INDEX_FILE,
} from './shards';

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

/** `model.` prefixed names, as the learner's parameters are named (some checkpoints omit the prefix). */
const paramName = (name: string): string =>
  name.startsWith('model.') || name === 'lm_head.weight' ? name : `model.${name}`;

/** How `importHfModel` reads the weights (`maxChunkBytes`: the largest ranged read). */
export type ImportHfOptions = SafetensorsIoOptions;

/**
 * Reads a Hugging Face model directory (weights converted to float32, names and shapes checked
 * against the config). With `model.safetensors.index.json` the files its `weight_map` names are read
 * (each tensor from the file the index gives), else every `*.safetensors` file. Files of any size
 * load: each tensor is read into its own array with ranged reads (`readSafetensorsFloat32`), and
 * tensors the config does not use are never read.
 */
export async function importHfModel(dir: string, options: ImportHfOptions = {}): Promise<HfModel> {
  const hfConfig = await readJson(join(dir, 'config.json'));
  const config = fromHfConfig(hfConfig);
  const index = await readShardIndex(dir);
  const files = index
    ? [...new Set(index.values())].sort()
    : (await readdir(dir)).filter((f) => f.endsWith('.safetensors')).sort();
  if (files.length === 0)
    throw new CheckpointError(`${dir} has no *.safetensors file.`, { code: 'MODEL_FORMAT' });
  const specs = new Map(paramSpecs(config).map((s) => [s.name, s]));
  const weights: ParamStore = new Map();
  for (const f of files) {
    const path = join(dir, f);
    const { tensors } = await readSafetensorsFloat32(path, {
      ...(options.maxChunkBytes === undefined ? {} : { maxChunkBytes: options.maxChunkBytes }),
      select: (name, { shape }) => {
        const s = specs.get(paramName(name));
        if (s === undefined || (index !== undefined && index.get(name) !== f)) return false;
        if (shape.length !== s.shape.length || shape.some((d, i) => d !== s.shape[i])) {
          throw new CheckpointError(
            `${dir}: '${s.name}' has shape [${shape.join(', ')}], the config needs [${s.shape.join(', ')}].`,
            { code: 'MODEL_FORMAT', context: { path, name: s.name } },
          );
        }
        return true;
      },
    }).catch((cause: unknown) => {
      // A shard the index names but the directory lacks, or an unreadable file: a format error naming it.
      if (MageError.isInstance(cause)) throw cause;
      throw new CheckpointError(`Cannot read ${path}: ${String(cause)}`, {
        code: 'MODEL_FORMAT',
        cause,
        context: { path },
      });
    });
    for (const [name, t] of tensors) weights.set(paramName(name), t.data);
  }
  if (index) {
    for (const [name, f] of index) {
      if (specs.has(paramName(name)) && !weights.has(paramName(name))) {
        throw new CheckpointError(
          `${dir}: ${SAFETENSORS_INDEX_FILE} puts '${name}' in ${f}, which lacks it.`,
          {
            code: 'MODEL_FORMAT',
            context: { name, file: f },
          },
        );
      }
    }
  }
  const ordered: ParamStore = new Map();
  for (const s of specs.values()) {
    const w = weights.get(s.name);
    if (w === undefined) {
      throw new CheckpointError(`${dir}: the weights lack '${s.name}'.`, {
        code: 'MODEL_FORMAT',
        context: { name: s.name },
      });
    }
    ordered.set(s.name, w);
  }
  return { config, weights: ordered, hfConfig };
}

/** How `exportHfModel` writes safetensors weights. */
export interface HfSafetensorsOptions extends SafetensorsIoOptions {
  /**
   * Largest shard in bytes (default `DEFAULT_MAX_SHARD_BYTES`, Hugging Face's 5 GB): above it the
   * weights go to `model-0000k-of-0000n.safetensors` files with `model.safetensors.index.json`.
   */
  readonly maxShardBytes?: number;
  /** The stored dtype (default F32); BF16 and F16 round to nearest even. */
  readonly dtype?: WritableDType;
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
   * Which weight files to write (default both): safetensors (Hugging Face transformers, and
   * `importHfModel`) and `onnx/model.onnx` (transformers.js).
   */
  readonly files?: { readonly safetensors?: boolean; readonly onnx?: boolean };
  /** Shard size and dtype of the safetensors weights. */
  readonly safetensors?: HfSafetensorsOptions;
}

/**
 * Writes a Hugging Face / transformers.js directory atomically (built under a temporary name, then
 * renamed into place). The safetensors weights are streamed, shard by shard, as Hugging Face's
 * `save_pretrained` lays them out (`planShards`). Returns the names of the files written.
 */
export async function exportHfModel(options: ExportHfOptions): Promise<{ files: string[] }> {
  const { config: c, weights } = options;
  const small = new Map<string, string | Uint8Array>();
  const tensors = new Map<string, TensorToWrite>();
  for (const s of paramSpecs(c)) {
    const w = weights.get(s.name);
    if (w === undefined) throw new CheckpointError(`exportHfModel: no weight '${s.name}'.`);
    tensors.set(s.name, { data: w, shape: s.shape });
  }
  small.set('config.json', `${JSON.stringify(toHfConfig(c), null, 2)}\n`);
  small.set(
    'generation_config.json',
    `${JSON.stringify({ ...(c.bosTokenId === undefined ? {} : { bos_token_id: c.bosTokenId }), ...(c.eosTokenId === undefined ? {} : { eos_token_id: c.eosTokenId }), ...options.generation }, null, 2)}\n`,
  );
  const st = options.safetensors ?? {};
  const dtype = st.dtype ?? 'F32';
  const plan =
    options.files?.safetensors === false
      ? undefined
      : planShards(
          [...tensors].map(([name, t]) => ({ name, bytes: t.data.length * FLOAT_DTYPE_BYTES[dtype] })),
          st.maxShardBytes ?? DEFAULT_MAX_SHARD_BYTES,
        );
  if (plan?.index) small.set(SAFETENSORS_INDEX_FILE, formatShardIndex(plan.index));
  if (options.files?.onnx !== false) small.set('onnx/model.onnx', serializeExportModel(c, weights));
  for (const [name, content] of Object.entries(options.tokenizerFiles ?? {})) small.set(name, content);
  await writeDirAtomic(options.dir, async (temp) => {
    for (const [file, names] of plan?.shards ?? []) {
      await writeSafetensorsFile(
        join(temp, file),
        new Map(names.map((n) => [n, tensors.get(n) as TensorToWrite])),
        {
          dtype,
          metadata: { format: 'pt' },
          ...(st.maxChunkBytes === undefined ? {} : { maxChunkBytes: st.maxChunkBytes }),
        },
      );
    }
    for (const [name, bytes] of small) await writeFileAtomic(join(temp, name), bytes);
  });
  const [configFiles, rest] = [[...small.keys()].slice(0, 2), [...small.keys()].slice(2)];
  return { files: [...configFiles, ...(plan?.shards.keys() ?? []), ...rest] };
}
