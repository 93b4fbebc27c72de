/**
 * A rough estimate of a run's peak memory, made before anything large is loaded, so that a run which
 * cannot fit stops at once with the reason instead of swapping or being killed hours later. The parts and
 * their calibration are in architecture/learner.md ("Memory before a run").
 */

import { readFile } from 'node:fs/promises';
import { freemem, totalmem } from 'node:os';
import { join } from 'node:path';
import { ConfigError, pathExists } from '@mage-rl/core';
import { fromHfConfig } from '../hf';
import { type MemoryLimits, memoryLimitsOf, REFERENCE_MEMORY_BUDGET } from '../learner';
import { countParams, createMageTinyConfig, type ModelConfig } from '../model';
import { readMageTinyManifest } from './mage-tiny-dir';

const GIB = 2 ** 30;

/**
 * Node, onnxruntime, the V8 heap of rollouts and evaluation records: fitted so that the estimate of a
 * mage-tiny run meets its measured peak (pretrain 2.07 GB, one MAGE iteration 2.28 GiB).
 */
const RUNTIME_BYTES = 0.75 * GIB;
/** A reference model only scores: its sessions stay far below the policy's (and at most at them). */
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
  /** The learners' session and prefix cache budgets (default: those of a 6 GiB memory budget). */
  readonly memory?: MemoryLimits;
}

/** Estimated peak bytes of a learner (and its reference) of `config`. */
export function estimateRunMemory(config: ModelConfig, options: MemoryEstimateOptions): MemoryEstimate {
  const params = countParams(config);
  const memory = options.memory ?? memoryLimitsOf(REFERENCE_MEMORY_BUDGET);
  const parts: Record<string, number> = {
    runtime: RUNTIME_BYTES,
    weights: params * WEIGHT_BYTES_PER_PARAM,
    'gradients and optimizer': options.lora ? 0 : params * TRAINING_STATE_BYTES_PER_PARAM,
    'graph sessions': memory.sessionBytes,
    'prefix KV cache': memory.prefixCacheBytes,
  };
  if (options.reference) {
    parts['reference model'] =
      params * WEIGHT_BYTES_PER_PARAM + Math.min(REFERENCE_SESSION_BYTES, memory.sessionBytes);
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
  /** The run's `memory.budget` in bytes: an estimate above it is warned about. */
  readonly budget?: number;
  readonly total?: number;
  readonly available?: number;
  readonly env?: NodeJS.ProcessEnv;
  readonly log?: (line: string) => void;
}

/**
 * Refuses a run whose estimate exceeds the machine's memory, and warns when it exceeds the run's
 * `memory.budget` or what is free now. Returns the line it logged.
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
      `${line}. It would not fit: train LoRA adapters only (a Hugging Face model above the size threshold does by default), use a smaller model, lower memory.budget (it sizes the caches), or run on a larger machine. If the estimate is wrong for this model, set ${SKIP_MEMORY_CHECK_ENV}=1 to run anyway.`,
      { path: 'model', context: { estimate: estimate.bytes, total } },
    );
  }
  const warnings: string[] = [];
  if (options.budget !== undefined && estimate.bytes > options.budget) {
    // The caches and generation chunks are sized by the budget; weights and optimizer state are not.
    warnings.push(
      `it exceeds memory.budget (${gb(options.budget)}), which sizes the caches but not the model: raise memory.budget (--set memory.budget=16GB) if the machine has the memory, or train LoRA adapters or a smaller model`,
    );
  }
  if (estimate.bytes > available) warnings.push('it may swap or be killed');
  const message = warnings.length > 0 ? `${line} — ${warnings.join('; ')}` : line;
  options.log?.(message);
  return message;
}
