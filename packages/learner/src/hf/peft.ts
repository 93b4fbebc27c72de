/**
 * PEFT LoRA adapters on disk: `adapter_config.json` (`peft_type: LORA`, `r`, `lora_alpha`,
 * `target_modules`) and `adapter_model.safetensors` with PEFT's names
 * (`base_model.model.<linear>.lora_A.weight`, [rank, in]; `lora_B`, [out, rank]). The same layout
 * Hugging Face `peft` saves and vLLM's `load_lora_adapter` reads.
 */

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError } from '@mage-rl/core';
import { writeFilesAtomic } from '../checkpoint/checkpoint';
import {
  parseSafetensors,
  serializeSafetensors,
  type TensorToWrite,
  toFloat32,
} from '../checkpoint/safetensors';
import { ALL_LORA_TARGETS, type LoraOptions, type LoraTarget, loraSpecs } from '../lora/lora';
import type { ModelConfig } from '../model/config';
import type { ParamStore } from '../model/params';

const PEFT_PREFIX = 'base_model.model.';
const DEFAULT_TARGETS: readonly LoraTarget[] = ['q_proj', 'k_proj', 'v_proj', 'o_proj'];

export interface PeftAdapter {
  readonly lora: LoraOptions;
  /** Adapter tensors by this package's names (`<linear>.lora_A.weight`). */
  readonly adapters: ParamStore;
}

export interface ExportPeftOptions extends PeftAdapter {
  readonly dir: string;
  readonly config: ModelConfig;
  /** `base_model_name_or_path` of the adapter config (informational). */
  readonly baseModel?: string;
}

/** Writes `adapter_config.json` + `adapter_model.safetensors` into `dir` atomically. */
export async function exportPeftAdapter(o: ExportPeftOptions): Promise<void> {
  const tensors = new Map<string, TensorToWrite>();
  for (const s of loraSpecs(o.config, o.lora)) {
    const data = o.adapters.get(s.name);
    if (data === undefined) throw new CheckpointError(`exportPeftAdapter: no adapter '${s.name}'.`);
    tensors.set(`${PEFT_PREFIX}${s.name}`, { data, shape: s.shape });
  }
  const targets = o.lora.targets && o.lora.targets.length > 0 ? o.lora.targets : DEFAULT_TARGETS;
  const adapterConfig = {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    r: o.lora.rank,
    lora_alpha: o.lora.alpha ?? o.lora.rank,
    lora_dropout: 0,
    bias: 'none',
    fan_in_fan_out: false,
    use_rslora: false,
    inference_mode: true,
    target_modules: [...targets],
    base_model_name_or_path: o.baseModel ?? null,
  };
  await writeFilesAtomic(
    o.dir,
    new Map<string, string | Uint8Array>([
      ['adapter_config.json', `${JSON.stringify(adapterConfig, null, 2)}\n`],
      ['adapter_model.safetensors', serializeSafetensors(tensors, { format: 'pt' })],
    ]),
  );
}

const bad = (dir: string, why: string) =>
  new CheckpointError(`${dir} is not a PEFT LoRA adapter this model can use: ${why}.`, {
    code: 'MODEL_FORMAT',
    context: { dir },
  });

/** Reads the `LoraOptions` of an `adapter_config.json`. */
function loraOptionsOf(dir: string, raw: Record<string, unknown>): LoraOptions {
  if (raw.peft_type !== undefined && raw.peft_type !== 'LORA')
    throw bad(dir, `peft_type ${String(raw.peft_type)}`);
  const r = raw.r;
  if (typeof r !== 'number' || !Number.isInteger(r) || r <= 0)
    throw bad(dir, "'r' is not a positive integer");
  const alpha = typeof raw.lora_alpha === 'number' ? raw.lora_alpha : r;
  if (raw.use_rslora === true) throw bad(dir, 'use_rslora is not supported');
  if (raw.use_dora === true) throw bad(dir, 'DoRA is not supported');
  if (raw.bias !== undefined && raw.bias !== 'none')
    throw bad(dir, `bias '${String(raw.bias)}' is not supported`);
  const mods = raw.target_modules;
  const list = Array.isArray(mods) ? mods : typeof mods === 'string' ? [mods] : [];
  const targets = list.map((m) => String(m).split('.').at(-1) ?? '');
  for (const t of targets) {
    if (!(ALL_LORA_TARGETS as readonly string[]).includes(t)) throw bad(dir, `target module '${t}'`);
  }
  if (targets.length === 0) throw bad(dir, 'no target_modules');
  return { rank: r, alpha, targets: targets as LoraTarget[] };
}

/** Reads a PEFT LoRA adapter directory for `config` (names and shapes checked). */
export async function importPeftAdapter(dir: string, config: ModelConfig): Promise<PeftAdapter> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(join(dir, 'adapter_config.json'), 'utf8'));
  } catch (cause) {
    throw new CheckpointError(`Cannot read ${join(dir, 'adapter_config.json')}.`, {
      code: 'MODEL_FORMAT',
      cause,
      context: { dir },
    });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw bad(dir, 'adapter_config.json is not an object');
  const lora = loraOptionsOf(dir, raw as Record<string, unknown>);
  let bytes: Uint8Array;
  try {
    bytes = await readFile(join(dir, 'adapter_model.safetensors'));
  } catch (cause) {
    throw new CheckpointError(`Cannot read ${join(dir, 'adapter_model.safetensors')}.`, {
      code: 'MODEL_FORMAT',
      cause,
      context: { dir },
    });
  }
  const file = parseSafetensors(bytes, join(dir, 'adapter_model.safetensors'));
  const found = new Map<string, { data: Float32Array; shape: readonly number[] }>();
  for (const [name, entry] of file.tensors) {
    // PEFT names may carry the adapter name (`lora_A.default.weight`); the base prefix varies.
    const key = name
      .replace(/^base_model\.model\./, '')
      .replace(/\.lora_([AB])\.[^.]+\.weight$/, '.lora_$1.weight');
    found.set(key.startsWith('model.') ? key : `model.${key}`, {
      data: toFloat32(entry, name),
      shape: entry.shape,
    });
  }
  const adapters: ParamStore = new Map();
  for (const s of loraSpecs(config, lora)) {
    const t = found.get(s.name);
    if (t === undefined) throw bad(dir, `no tensor '${s.name}'`);
    if (t.shape.length !== s.shape.length || t.shape.some((d, i) => d !== s.shape[i]))
      throw bad(
        dir,
        `'${s.name}' has shape [${t.shape.join(', ')}], the model needs [${s.shape.join(', ')}]`,
      );
    adapters.set(s.name, t.data);
  }
  return { lora, adapters };
}
