/**
 * The `checkpoint-load` bench's model: Qwen3-0.6B's shape (the `qwen3` bench's config) with weights
 * of random float32 bits, exported by `exportHfModel` as float32 shards, and the SHA-256 of every
 * tensor's float32 bytes, which each loader checks after its timed load.
 */

import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LAYERS } from '../qwen3/model';

/** Largest shard (`MAGE_BENCH_LOAD_SHARD_BYTES`, default 1 GB: three shards for the 2.4 GB model). */
export const SHARD_BYTES = Number(process.env.MAGE_BENCH_LOAD_SHARD_BYTES ?? 1e9);

/** Where the export is cached (`MAGE_BENCH_LOAD_DIR`, else under the OS temporary directory). */
export const loadDir = (): string =>
  process.env.MAGE_BENCH_LOAD_DIR ??
  join(tmpdir(), `mage-bench-load-qwen3-0.6b-L${LAYERS}-s${SHARD_BYTES}-v1`);

/** Written last, beside the export: tensor name → SHA-256 (hex) of its float32 bytes. */
export const EXPECTED_FILE = 'bench-expected.json';

export const sha256 = (w: Float32Array): string =>
  createHash('sha256')
    .update(new Uint8Array(w.buffer, w.byteOffset, w.byteLength))
    .digest('hex');

/** What each loader process prints. */
export interface LoadRun {
  readonly side: string;
  /** Wall time of the load alone (headers, index and every tensor into memory as float32). */
  readonly ms: number;
  readonly cpuMs: number;
  readonly bytes: number;
  readonly tensors: number;
  /** Tensors whose SHA-256 differs from the exported weights' (0: identical). */
  readonly mismatches: number;
  readonly maxRssBytes: number;
}
