/**
 * A rough estimate of a run's peak memory, made before anything large is loaded, so that a run which
 * cannot fit stops at once with the reason instead of swapping or being killed hours later. The parts and
 * their calibration are in architecture/learner.md ("Memory before a run").
 */

import { readFile } from 'node:fs/promises';
import { freemem, totalmem } from 'node:os';
import { join } from 'node:path';
import { ConfigError, pathExists } from '@mage-rl/core';
import {
  countParams,
  createMageTinyConfig,
  DEFAULT_MAX_SESSION_BYTES,
  DEFAULT_PREFIX_CACHE_BYTES,
  fromHfConfig,
  type ModelConfig,
} from '@mage-rl/learner';
import { readMageTinyManifest } from './mage-tiny';

const GIB = 2 ** 30;

/**
 * Node, onnxruntime, the V8 heap of rollouts and evaluation records: fitted so that the estimate of a
 * mage-tiny run meets its measured peak (pretrain 2.07 GB, one MAGE iteration 2.28 GiB).
 */
const RUNTIME_BYTES = 0.75 * GIB;
/** A reference model only scores: its sessions stay far below the policy's budget. */
const REFERENCE_SESSION_BYTES = 0.25 * GIB;
/** float32 weights held twice: the learner's copy and onnxruntime's. */
const WEIGHT_BYTES_PER_PARAM = 8;
/** Gradient and two AdamW moments in float32, for every trained parameter. */
const TRAINING_STATE_BYTES_PER_PARAM = 12;
/** Whether the check is skipped (an escape hatch for an estimate that is wrong for some model). */
export const SKIP_MEMORY_CHECK_ENV = 'MAGE_SKIP_MEMORY_CHECK';

export interface MemoryEstimate {
  readonly bytes: number;
  /** Bytes by part, for the message. */
  readonly parts: Readonly<Record<string, number>>;
}

export interface MemoryEstimateOptions {
  /** Only LoRA adapters are trained (the base weights are frozen: no gradients or moments for them). */
  readonly lora: boolean;
  /** A frozen copy of the starting model is loaded for the KL term. */
  readonly reference: boolean;
}

/** Estimated peak bytes of a learner (and its reference) of `config`. */
export function estimateRunMemory(config: ModelConfig, options: MemoryEstimateOptions): MemoryEstimate {
  const params = countParams(config);
  const parts: Record<string, number> = {
    runtime: RUNTIME_BYTES,
    weights: params * WEIGHT_BYTES_PER_PARAM,
    'gradients and optimizer': options.lora ? 0 : params * TRAINING_STATE_BYTES_PER_PARAM,
    'graph sessions': DEFAULT_MAX_SESSION_BYTES,
    'prefix KV cache': DEFAULT_PREFIX_CACHE_BYTES,
  };
  if (options.reference) {
    parts['reference model'] = params * WEIGHT_BYTES_PER_PARAM + REFERENCE_SESSION_BYTES;
  }
  return { bytes: Object.values(parts).reduce((a, b) => a + b, 0), parts };
}

/**
 * The model config of a model directory (mage-tiny or Hugging Face) without loading its weights; a
 * default mage-tiny when the directory does not exist yet (a warm start still to be pretrained) or its
 * config cannot be read (loading it later rebuilds a damaged cache entry, or reports the damage).
 */
export async function modelConfigOf(dir: string): Promise<ModelConfig> {
  try {
    if (await pathExists(join(dir, 'mage-tiny.json'))) return (await readMageTinyManifest(dir)).config;
    const hf = join(dir, 'config.json');
    if (await pathExists(hf)) {
      return fromHfConfig(JSON.parse(await readFile(hf, 'utf8')) as Record<string, unknown>);
    }
  } catch {
    // Falls through to the default shape.
  }
  return createMageTinyConfig(256);
}

const gb = (bytes: number) => `${(bytes / 1e9).toFixed(1)} GB`;

export interface MemoryCheckOptions {
  readonly total?: number;
  readonly available?: number;
  readonly env?: NodeJS.ProcessEnv;
  readonly log?: (line: string) => void;
}

/**
 * Refuses a run whose estimate exceeds the machine's memory, and warns when it exceeds what is free now.
 * Returns the line it logged.
 */
export function checkRunMemory(
  estimate: MemoryEstimate,
  what: string,
  options: MemoryCheckOptions = {},
): string {
  const total = options.total ?? totalmem();
  const available = options.available ?? freemem();
  const parts = Object.entries(estimate.parts)
    .filter(([, bytes]) => bytes >= 0.05e9)
    .map(([name, bytes]) => `${name} ${gb(bytes)}`)
    .join(', ');
  const line = `memory: ${what} needs about ${gb(estimate.bytes)} (${parts}); this machine has ${gb(total)}, ${gb(available)} free`;
  const skip = (options.env ?? process.env)[SKIP_MEMORY_CHECK_ENV] === '1';
  if (estimate.bytes > total && !skip) {
    throw new ConfigError(
      `${line}. It would not fit: train LoRA adapters only (a Hugging Face model above the size threshold does by default), use a smaller model, or run on a larger machine. If the estimate is wrong for this model, set ${SKIP_MEMORY_CHECK_ENV}=1 to run anyway.`,
      { path: 'model', context: { estimate: estimate.bytes, total } },
    );
  }
  const message = estimate.bytes > available ? `${line} — it may swap or be killed` : line;
  options.log?.(message);
  return message;
}
