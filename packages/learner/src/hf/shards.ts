/**
 * Sharded safetensors checkpoints as Hugging Face writes and reads them: tensors in state-dict order
 * split into `model-0000k-of-0000n.safetensors` files of at most a maximum size, listed by
 * `model.safetensors.index.json` (`metadata.total_size`, `weight_map`: tensor name → file); one
 * `model.safetensors` and no index when everything fits in one shard. architecture/learner.md,
 * "Hugging Face interop".
 */

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError, ConfigError } from '@mage-rl/core';

/** The index file of a sharded checkpoint. */
export const SAFETENSORS_INDEX_FILE = 'model.safetensors.index.json';
/** The file of an unsharded checkpoint. */
export const SINGLE_SAFETENSORS_FILE = 'model.safetensors';
/** Hugging Face's default `max_shard_size` ("5GB", decimal gigabytes), and ours. */
export const DEFAULT_MAX_SHARD_BYTES = 5_000_000_000;

export interface ShardPlan {
  /** File name → the tensor names it holds, in order. */
  readonly shards: ReadonlyMap<string, readonly string[]>;
  /** The index file's content; undefined when there is one shard (`model.safetensors`). */
  readonly index:
    | { readonly metadata: { readonly total_size: number }; readonly weight_map: Record<string, string> }
    | undefined;
}

/**
 * Splits tensors (name and byte size, in state-dict order) as `huggingface_hub`'s
 * `split_state_dict_into_shards` does: a tensor that would take the current shard over
 * `maxShardBytes` starts a new one, and a tensor larger than the maximum gets a shard of its own.
 */
export function planShards(
  tensors: readonly { readonly name: string; readonly bytes: number }[],
  maxShardBytes: number = DEFAULT_MAX_SHARD_BYTES,
): ShardPlan {
  if (!(maxShardBytes > 0))
    throw new ConfigError(`The largest shard must be positive, got ${maxShardBytes}.`);
  const groups: string[][] = [];
  let current: string[] = [];
  let currentBytes = 0;
  let total = 0;
  for (const t of tensors) {
    total += t.bytes;
    if (t.bytes > maxShardBytes) {
      groups.push([t.name]);
      continue;
    }
    if (currentBytes + t.bytes > maxShardBytes && current.length > 0) {
      groups.push(current);
      current = [];
      currentBytes = 0;
    }
    current.push(t.name);
    currentBytes += t.bytes;
  }
  if (current.length > 0) groups.push(current);
  if (groups.length <= 1) {
    return { shards: new Map([[SINGLE_SAFETENSORS_FILE, groups[0] ?? []]]), index: undefined };
  }
  const pad = (i: number) => String(i).padStart(5, '0');
  const shards = new Map<string, string[]>();
  const owner = new Map<string, string>();
  groups.forEach((names, i) => {
    const file = `model-${pad(i + 1)}-of-${pad(groups.length)}.safetensors`;
    shards.set(file, names);
    for (const n of names) owner.set(n, file);
  });
  // Sorted keys, as `json.dumps(index, indent=2, sort_keys=True)` writes them.
  const weight_map: Record<string, string> = {};
  for (const name of [...owner.keys()].sort()) weight_map[name] = owner.get(name) as string;
  return { shards, index: { metadata: { total_size: total }, weight_map } };
}

/** The index as Hugging Face writes it: two-space indented JSON with sorted keys and a final newline. */
export const formatShardIndex = (index: NonNullable<ShardPlan['index']>): string =>
  `${JSON.stringify({ metadata: index.metadata, weight_map: index.weight_map }, null, 2)}\n`;

/**
 * Reads `model.safetensors.index.json` of `dir`: tensor name → file name (a plain file name in `dir`;
 * paths are refused). Undefined when the directory has no index.
 */
export async function readShardIndex(dir: string): Promise<Map<string, string> | undefined> {
  const path = join(dir, SAFETENSORS_INDEX_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CheckpointError(`Cannot read ${path}.`, { code: 'MODEL_FORMAT', cause, context: { path } });
  }
  const bad = (why: string, cause?: unknown): never => {
    throw new CheckpointError(`${path} ${why}.`, {
      code: 'MODEL_FORMAT',
      context: { path },
      ...(cause === undefined ? {} : { cause }),
    });
  };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    bad('is not JSON', cause);
  }
  const map = (json as { weight_map?: unknown } | null)?.weight_map;
  if (typeof map !== 'object' || map === null || Array.isArray(map)) bad('has no weight_map object');
  const out = new Map<string, string>();
  for (const [name, file] of Object.entries(map as Record<string, unknown>)) {
    if (
      typeof file !== 'string' ||
      !file.endsWith('.safetensors') ||
      /[/\\]/.test(file) ||
      file.startsWith('.')
    ) {
      bad(`maps '${name}' to ${JSON.stringify(file)}, not a .safetensors file in the same directory`);
    }
    out.set(name, file as string);
  }
  return out;
}

const SIZE_UNITS: Readonly<Record<string, number>> = {
  B: 1,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  KIB: 2 ** 10,
  MIB: 2 ** 20,
  GIB: 2 ** 30,
  TIB: 2 ** 40,
};

/**
 * A byte size written as Hugging Face's `max_shard_size` is: `5GB` (decimal), `2GiB` (binary),
 * `500MB`, or a plain number of bytes. `label` names the option in the error.
 */
export function parseByteSize(text: string, label = 'size'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unit = SIZE_UNITS[(m?.[2] ?? '').toUpperCase() || 'B'];
  const bytes = m && unit !== undefined ? Math.floor(Number(m[1]) * unit) : Number.NaN;
  if (!(bytes > 0) || !Number.isSafeInteger(bytes)) {
    throw new ConfigError(
      `${label}: expected a positive size such as 5GB, 500MB, 2GiB or a number of bytes, got '${text}'.`,
      { path: label },
    );
  }
  return bytes;
}
