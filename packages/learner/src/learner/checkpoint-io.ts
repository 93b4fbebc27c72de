/** The learner's checkpoints: its weights (and adapters), optimizer state, RNG and model metadata. */

import { CheckpointError, type Rng, type RngState } from '@mage-rl/core';
import { checkCheckpointTensors, loadCheckpoint, saveCheckpoint } from '../checkpoint/checkpoint';
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
  const specs = savedSpecs(params);
  checkCheckpointTensors(dir, ck.weights, specs);
  const copies = specs.map((s) => ({
    dst: liveTensor(params, s.name),
    data: (ck.weights.get(s.name) as { data: Float32Array }).data,
  }));
  for (const [kind, moments] of Object.entries(
    ck.optimizer ? { m: ck.optimizer.m, v: ck.optimizer.v } : {},
  )) {
    for (const [name, moment] of moments) {
      if (specs.some((s) => s.name === name) && moment.length !== liveTensor(params, name).length) {
        throw new CheckpointError(
          `${dir}/optimizer.safetensors: moment '${kind}.${name}' has ${moment.length} values, the weight has ${liveTensor(params, name).length}; the checkpoint is damaged: resume from an earlier one.`,
          { context: { path: dir, tensor: name } },
        );
      }
    }
  }
  for (const { dst, data } of copies) dst.set(data);
  return {
    optimizer: ck.optimizer ?? { step: ck.step, consecutiveSkips: 0, m: new Map(), v: new Map() },
    ...(ck.rng === undefined ? {} : { rng: ck.rng }),
  };
}

/**
 * Reads a checkpoint's weights (and adapters) into the stores of an inference-only learner, which are
 * empty (its runner holds the weights): the checkpoint's own arrays, all checked first, ready for
 * `handOverWeights`. The optimizer state is not read. Returns the RNG state.
 */
export async function loadCheckpointWeights(
  dir: string,
  params: LearnerParams,
): Promise<{ readonly rng?: RngState }> {
  const ck = await loadCheckpoint(dir, { optimizer: false });
  const specs = savedSpecs(params);
  checkCheckpointTensors(dir, ck.weights, specs);
  const tensor = (name: string) => (ck.weights.get(name) as { data: Float32Array }).data;
  for (const s of params.specs) params.weights.set(s.name, tensor(s.name));
  if (params.trainStore !== params.weights)
    for (const s of params.trainSpecs) params.adapters.set(s.name, tensor(s.name));
  return ck.rng === undefined ? {} : { rng: ck.rng };
}
