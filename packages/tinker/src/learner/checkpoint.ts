/**
 * The Tinker learner's checkpoint: the weights and optimizer state stay on the service (`save_weights`);
 * the checkpoint directory records their `tinker://` path with the step, so `load` in a new process and
 * session restores them with `load_weights` into its own model and publishes sampler weights again.
 */

import { join } from 'node:path';
import { CheckpointError, firstIssue, readJsonFile, writeJsonAtomic } from '@mage-rl/core';
import { z } from 'zod';
import { type LearnerContext, publishSampler } from './update';

const FILE = 'tinker-learner.json';

const checkpointSchema = z.object({
  format: z.literal('mage-rl/tinker-learner@1'),
  baseModel: z.string(),
  loraRank: z.int(),
  /** The model that saved it (for the record; `load` restores into the learner's own model). */
  modelId: z.string(),
  statePath: z.string().min(1),
  step: z.int().min(0),
  consecutiveSkips: z.int().min(0),
});

/** Saves the state on the service and writes `tinker-learner.json` into `dir` atomically. */
export async function saveTinker(ctx: LearnerContext, dir: string): Promise<void> {
  const statePath = await ctx.calls.saveState(`mage-state-step-${ctx.state.step}`);
  await writeJsonAtomic(join(dir, FILE), {
    format: 'mage-rl/tinker-learner@1',
    baseModel: ctx.baseModel,
    loraRank: ctx.loraRank,
    modelId: ctx.calls.modelId,
    statePath,
    step: ctx.state.step,
    consecutiveSkips: ctx.state.consecutiveSkips,
  });
}

/** Restores the state `dir` records (same base model and rank only). */
export async function loadTinker(ctx: LearnerContext, dir: string): Promise<void> {
  const path = join(dir, FILE);
  const parsed = checkpointSchema.safeParse(await readJsonFile(path));
  if (!parsed.success) {
    throw new CheckpointError(
      `'${path}' is not a Tinker learner checkpoint: ${firstIssue(parsed.error).message}.`,
      {
        context: { path },
      },
    );
  }
  const saved = parsed.data;
  if (saved.baseModel !== ctx.baseModel || saved.loraRank !== ctx.loraRank) {
    throw new CheckpointError(
      `'${path}' holds a LoRA of rank ${saved.loraRank} on ${saved.baseModel}; this learner trains rank ${ctx.loraRank} on ${ctx.baseModel}.`,
      { context: { path } },
    );
  }
  await ctx.calls.loadState(saved.statePath);
  ctx.state.step = saved.step;
  ctx.state.consecutiveSkips = saved.consecutiveSkips;
  ctx.state.samplerPath = null;
  if (saved.step > 0) await publishSampler(ctx);
}
