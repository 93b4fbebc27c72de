/** The learner's checkpoints: its weights (and adapters), optimizer state, RNG and model metadata. */

import { CheckpointError, type Rng, type RngState } from '@mage-rl/core';
import { loadCheckpoint, saveCheckpoint } from '../checkpoint/checkpoint';
import type { TensorToWrite } from '../checkpoint/safetensors';
import type { LoraOptions } from '../lora/lora';
import type { ModelConfig } from '../model/config';
import type { AdamW, AdamWState } from '../optim/adamw';
import { type LearnerParams, liveTensor, savedSpecs } from './params';

export interface LearnerCheckpoint {
  readonly id: string;
  readonly config: ModelConfig;
  readonly lora: LoraOptions | undefined;
  readonly params: LearnerParams;
  readonly optimizer: AdamW;
  readonly rng: Rng;
}

/** Writes the learner's weights, optimizer state, RNG state and metadata into `dir` (atomically). */
export async function saveLearnerCheckpoint(dir: string, c: LearnerCheckpoint): Promise<void> {
  const tensors = new Map<string, TensorToWrite>();
  for (const s of savedSpecs(c.params))
    tensors.set(s.name, { data: liveTensor(c.params, s.name), shape: s.shape });
  const { lora } = c;
  await saveCheckpoint(dir, {
    weights: tensors,
    optimizer: c.optimizer.state,
    rng: c.rng.getState(),
    step: c.optimizer.state.step,
    metadata: {
      id: c.id,
      config: { ...c.config },
      lora:
        lora === undefined
          ? null
          : { rank: lora.rank, alpha: lora.alpha ?? lora.rank, targets: [...(lora.targets ?? [])] },
    },
  });
}

/**
 * Reads a checkpoint into the live weights (all of them checked first, so a bad checkpoint changes
 * nothing) and returns its optimizer and RNG state.
 */
export async function loadLearnerCheckpoint(
  dir: string,
  params: LearnerParams,
): Promise<{ readonly optimizer: AdamWState; readonly rng?: RngState }> {
  const ck = await loadCheckpoint(dir);
  const copies = savedSpecs(params).map((s) => {
    const t = ck.weights.get(s.name);
    const dst = liveTensor(params, s.name);
    if (t === undefined || t.data.length !== dst.length) {
      throw new CheckpointError(`Checkpoint ${dir} lacks '${s.name}' with shape [${s.shape.join(', ')}].`);
    }
    return { dst, data: t.data };
  });
  for (const { dst, data } of copies) dst.set(data);
  return {
    optimizer: ck.optimizer ?? { step: ck.step, consecutiveSkips: 0, m: new Map(), v: new Map() },
    ...(ck.rng === undefined ? {} : { rng: ck.rng }),
  };
}
