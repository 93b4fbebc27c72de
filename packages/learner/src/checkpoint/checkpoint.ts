/**
 * Checkpoints: a directory with `model.safetensors` (weights), `optimizer.safetensors` (AdamW moments
 * `m.<name>` / `v.<name>`) and `checkpoint.json` (format, step, optimizer counters, RNG state, user
 * metadata). Written atomically with core's `writeDirAtomic`: everything goes to a temporary sibling
 * directory, each file and the directory are fsynced, then the directory is renamed into place.
 */

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CheckpointError,
  type JsonValue,
  MageError,
  type RngState,
  writeDirAtomic,
  writeFileAtomic,
} from '@mage-rl/core';
import type { AdamWState } from '../optim/adamw';
import {
  readSafetensorsFloat32,
  type SafetensorsDType,
  type TensorToWrite,
  writeSafetensorsFile,
} from './safetensors';

export const CHECKPOINT_FORMAT = 'mage-rl/checkpoint@1';

export interface CheckpointData {
  readonly weights: ReadonlyMap<string, TensorToWrite>;
  readonly optimizer?: AdamWState;
  readonly rng?: RngState;
  readonly step: number;
  readonly metadata?: JsonValue;
}

/** A tensor read from a checkpoint: float32 values, the shape and the dtype the file stored it in. */
export interface LoadedTensor extends TensorToWrite {
  readonly dtype: SafetensorsDType;
}

export interface LoadedCheckpoint {
  readonly weights: Map<string, LoadedTensor>;
  readonly optimizer?: AdamWState;
  readonly rng?: RngState;
  readonly step: number;
  readonly metadata: JsonValue;
}

/**
 * Writes `files` (relative name → content) into `dir` atomically with core's `writeDirAtomic`: readers
 * see the old directory or the complete new one.
 */
export async function writeFilesAtomic(
  dir: string,
  files: ReadonlyMap<string, Uint8Array | string>,
): Promise<void> {
  await writeDirAtomic(dir, async (temp) => {
    for (const [name, bytes] of files) await writeFileAtomic(join(temp, name), bytes);
  });
}

/**
 * Writes a checkpoint directory atomically. The safetensors files are streamed tensor by tensor
 * (`writeSafetensorsFile`): a full fine-tune's optimizer file is twice the weights, past what one buffer
 * may hold for a 0.6B model.
 */
export async function saveCheckpoint(dir: string, data: CheckpointData): Promise<void> {
  let moments: Map<string, TensorToWrite> | undefined;
  if (data.optimizer !== undefined) {
    moments = new Map();
    for (const [name, m] of data.optimizer.m) {
      const shape = data.weights.get(name)?.shape ?? [m.length];
      moments.set(`m.${name}`, { data: m, shape });
      moments.set(`v.${name}`, { data: data.optimizer.v.get(name) as Float32Array, shape });
    }
  }
  const meta = {
    format: CHECKPOINT_FORMAT,
    step: data.step,
    optimizer:
      data.optimizer === undefined
        ? null
        : { step: data.optimizer.step, consecutiveSkips: data.optimizer.consecutiveSkips },
    rng: data.rng ?? null,
    metadata: data.metadata ?? null,
  };
  await writeDirAtomic(dir, async (temp) => {
    await writeSafetensorsFile(join(temp, 'model.safetensors'), data.weights, { metadata: { format: 'pt' } });
    if (moments !== undefined) await writeSafetensorsFile(join(temp, 'optimizer.safetensors'), moments);
    await writeFileAtomic(join(temp, 'checkpoint.json'), `${JSON.stringify(meta, null, 2)}\n`);
  });
}

function cannotRead(path: string, cause: unknown): CheckpointError {
  return new CheckpointError(`Cannot read ${path}: ${String(cause)}`, { cause, context: { path } });
}

async function readBytes(path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (cause) {
    throw cannotRead(path, cause);
  }
}

/** The tensors of a safetensors file as float32, read with ranged reads (files above 2 GiB load too). */
async function readTensors(path: string): Promise<Map<string, LoadedTensor>> {
  try {
    return (await readSafetensorsFloat32(path)).tensors;
  } catch (cause) {
    throw MageError.isInstance(cause) ? cause : cannotRead(path, cause);
  }
}

/**
 * Checks that a checkpoint holds every tensor of `specs` by name, stored as F32 (what `saveCheckpoint`
 * writes) with exactly the spec's shape: a transposed matrix of the same size is refused, not loaded.
 */
export function checkCheckpointTensors(
  dir: string,
  weights: ReadonlyMap<string, LoadedTensor>,
  specs: readonly { readonly name: string; readonly shape: readonly number[] }[],
): void {
  const file = join(dir, 'model.safetensors');
  const shape = (dims: readonly number[]) => `[${dims.join(', ')}]`;
  for (const s of specs) {
    const t = weights.get(s.name);
    const problem =
      t === undefined
        ? 'is missing'
        : t.dtype !== 'F32'
          ? `is stored as ${t.dtype}, not F32`
          : t.shape.length !== s.shape.length || t.shape.some((d, i) => d !== s.shape[i])
            ? `has shape ${shape(t.shape)}`
            : null;
    if (problem !== null) {
      throw new CheckpointError(
        `${file}: tensor '${s.name}' ${problem}; the model config needs F32 ${shape(s.shape)}. The checkpoint was written for another model configuration or is damaged: load it with the configuration it was saved with, or resume from an earlier checkpoint.`,
        { context: { path: file, tensor: s.name, expected: s.shape, got: t?.shape ?? null } },
      );
    }
  }
}

export interface LoadCheckpointOptions {
  /**
   * Read the optimizer state (default true). An inference-only learner skips it: a full fine-tune's
   * moments are twice the size of its weights.
   */
  readonly optimizer?: boolean;
}

export async function loadCheckpoint(
  dir: string,
  options: LoadCheckpointOptions = {},
): Promise<LoadedCheckpoint> {
  const jsonPath = join(dir, 'checkpoint.json');
  let meta: {
    format?: unknown;
    step?: unknown;
    optimizer?: { step?: unknown; consecutiveSkips?: unknown } | null;
    rng?: RngState | null;
    metadata?: JsonValue;
  };
  try {
    meta = JSON.parse(new TextDecoder().decode(await readBytes(jsonPath)));
  } catch (cause) {
    if (cause instanceof CheckpointError) throw cause;
    throw new CheckpointError(`${jsonPath} is not valid JSON.`, { cause, context: { path: jsonPath } });
  }
  if (
    typeof meta !== 'object' ||
    meta === null ||
    meta.format !== CHECKPOINT_FORMAT ||
    typeof meta.step !== 'number'
  ) {
    throw new CheckpointError(`${jsonPath} is not a ${CHECKPOINT_FORMAT} checkpoint.`, {
      context: { path: jsonPath },
    });
  }
  const weightsPath = join(dir, 'model.safetensors');
  const weights = await readTensors(weightsPath);
  let optimizer: AdamWState | undefined;
  if (meta.optimizer && options.optimizer !== false) {
    const optPath = join(dir, 'optimizer.safetensors');
    const moments = await readTensors(optPath);
    optimizer = {
      step: Number(meta.optimizer.step ?? 0),
      consecutiveSkips: Number(meta.optimizer.consecutiveSkips ?? 0),
      m: new Map(),
      v: new Map(),
    };
    for (const [key, t] of moments) {
      const target = key.startsWith('m.') ? optimizer.m : key.startsWith('v.') ? optimizer.v : undefined;
      if (target === undefined) throw new CheckpointError(`${optPath}: unexpected tensor '${key}'.`);
      target.set(key.slice(2), t.data);
    }
  }
  return {
    weights,
    ...(optimizer === undefined ? {} : { optimizer }),
    ...(meta.rng ? { rng: meta.rng } : {}),
    step: meta.step,
    metadata: meta.metadata ?? null,
  };
}
