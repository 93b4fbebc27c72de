/**
 * The supervised phase of the warm start: the teachers' examples as packed learner rows, the step plan
 * and learning-rate schedule, and the training epochs (cross-entropy on response tokens).
 */

import {
  createRng,
  InvalidArgumentError,
  type LearnerRowV1,
  type PackedRowV1,
  packRows,
  throwIfAborted,
} from '@mage-rl/core';
import { weightedNllLoss } from '@mage-rl/gigpo';
import {
  createLrSchedule,
  type LrSchedule,
  type OnnxLearner,
  spanChunks,
  type WordLevelTokenizer,
} from '@mage-rl/learner';
import type { TrainConfig, WarmStartExample } from '@mage-rl/recipes';
import type { PretrainOptions } from './pretrain';

/** The examples that fit the model's context, as learner rows and packed sequences. */
export interface TrainingSet {
  /** Learner rows (one per example that fits). */
  readonly rows: number;
  /** Prompt and response tokens of those rows: what one epoch reads before packing. */
  readonly tokens: number;
  /** Sequences with at least one response span. */
  readonly packed: readonly PackedRowV1[];
}

/**
 * Every example as a row (prompt, response and end-of-sequence, advantage 1), skipping those longer than
 * the model's context; then one sequence per slot where the turns extend each other (transcript layout):
 * each example of a slot comes after the previous one in the corpus, so `packRows` merges them into spans.
 */
export function trainingSet(
  examples: readonly WarmStartExample[],
  tokenizer: WordLevelTokenizer,
  learner: OnnxLearner,
): TrainingSet {
  const [eos] = tokenizer.eosTokenIds;
  if (eos === undefined) throw new InvalidArgumentError('The mage-tiny tokenizer has no end-of-sequence id.');
  const maxPositions = learner.config.maxPositions;
  const rows: LearnerRowV1[] = [];
  const slots: string[] = [];
  let tokens = 0;
  for (const e of examples) {
    const promptTokens = tokenizer.encodeChat(e.messages);
    const responseTokens = [...tokenizer.encode(e.response), eos];
    if (promptTokens.length + responseTokens.length > maxPositions) continue;
    rows.push({
      promptTokens,
      responseTokens,
      oldLogprobs: new Array(responseTokens.length).fill(0),
      advantage: 1,
    });
    slots.push(`${e.envId}/${e.iteration}/${e.slot}`);
    tokens += promptTokens.length + responseTokens.length;
  }
  const packed = packRows(rows, {
    maxTokens: learner.packedRows?.maxTokens ?? maxPositions,
    groupOf: (_, i) => slots[i] as string,
  }).rows.filter((p) => p.spans.length > 0);
  return { rows: rows.length, tokens, packed };
}

/** How the epochs step: `batchRows` turns per optimizer step, four steps' worth of turns per update call. */
export interface EpochPlan {
  readonly epochs: number;
  readonly batch: number;
  /** Spans per `learner.update` call (a loss point each). */
  readonly chunk: number;
  readonly totalSteps: number;
  readonly warmupSteps: number;
}

export function epochPlan(ws: TrainConfig['warmStart'], rows: number): EpochPlan {
  const batch = Math.max(1, ws.batchRows);
  const stepsPerEpoch = Math.ceil(rows / batch);
  const totalSteps = stepsPerEpoch * ws.epochs;
  const warmupSteps = Math.min(20, Math.floor(totalSteps / 10));
  return { epochs: ws.epochs, batch, chunk: batch * 4, totalSteps, warmupSteps };
}

/** Warm-up, then cosine decay to a tenth of `lr` over the whole run. */
export function warmStartSchedule(lr: number, plan: EpochPlan): LrSchedule {
  return createLrSchedule({
    lr,
    warmupSteps: plan.warmupSteps,
    totalSteps: Math.max(plan.totalSteps, plan.warmupSteps + 1),
    decay: 'cosine',
  });
}

/** One point of the loss curve: the optimizer step reached and the loss of the update that reached it. */
export interface LossPoint {
  readonly step: number;
  readonly loss: number;
}

/** The epochs: each shuffles the sequences (its own rng stream) and trains on them chunk by chunk. */
export async function trainEpochs(
  learner: OnnxLearner,
  packed: readonly PackedRowV1[],
  plan: EpochPlan,
  options: Pick<PretrainOptions, 'seed' | 'signal' | 'onProgress'>,
  log: (line: string) => void,
): Promise<LossPoint[]> {
  const loss = weightedNllLoss();
  const rng = createRng(`${options.seed}/warm-start/shuffle`);
  const lossCurve: LossPoint[] = [];
  let step = 0;
  for (let epoch = 0; epoch < plan.epochs; epoch++) {
    const order = rng.split(`epoch-${epoch}`).shuffle(packed.slice());
    for (const part of spanChunks(order, plan.chunk)) {
      throwIfAborted(options.signal);
      const r = await learner.update({
        rows: part,
        loss,
        epochs: 1,
        miniBatchRows: plan.batch,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      step += r.steps + r.skippedSteps;
      if (Number.isFinite(r.loss)) lossCurve.push({ step, loss: r.loss });
      options.onProgress?.({
        phase: 'train',
        done: Math.min(step, plan.totalSteps),
        total: plan.totalSteps,
        loss: r.loss,
      });
    }
    log(`epoch ${epoch + 1}/${plan.epochs}: loss ${lossCurve.at(-1)?.loss.toFixed(4) ?? 'n/a'}`);
  }
  return lossCurve;
}
