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
  fitsSegmentRun,
  type LrSchedule,
  type OnnxLearner,
  type SegmentRunShape,
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

/** One `learner.update` call of the epochs: its sequences, and turns per optimizer step (default all). */
export interface EpochCall {
  readonly rows: readonly PackedRowV1[];
  readonly miniBatchRows?: number;
}

/**
 * How the epochs step, every epoch's update calls in order (each epoch's own shuffle of the sequences).
 * With `batchTokens`, a call is one optimizer step over the sequences that fill `batchTokens` positions of
 * the learner's fixed-length segment rows (`tokenSteps`); else a call holds four steps of `batchRows`
 * turns.
 */
export interface EpochPlan {
  readonly epochs: number;
  readonly calls: readonly (readonly EpochCall[])[];
  readonly totalSteps: number;
  readonly warmupSteps: number;
}

/**
 * The plan of `ws.epochs` epochs over `packed` (the `rows` learner rows of `trainingSet`). Steps by
 * `batchTokens` need the learner's segment rows of a fixed length (`segmentRun`).
 */
export function epochPlan(
  ws: TrainConfig['warmStart'],
  packed: readonly PackedRowV1[],
  rows: number,
  seed: number,
  segmentRun: SegmentRunShape | undefined,
): EpochPlan {
  const rng = createRng(`${seed}/warm-start/shuffle`);
  const orders = Array.from({ length: ws.epochs }, (_, epoch) =>
    rng.split(`epoch-${epoch}`).shuffle(packed.slice()),
  );
  let calls: EpochCall[][];
  let totalSteps: number;
  if (ws.batchTokens > 0) {
    if (segmentRun === undefined) {
      throw new InvalidArgumentError(
        'warmStart.batchTokens needs a learner with segment rows of a fixed length (segmentRows: { rowLength }).',
      );
    }
    const shape = {
      rowLength: segmentRun.rowLength,
      rows: Math.max(1, Math.floor(ws.batchTokens / segmentRun.rowLength)),
    };
    calls = orders.map((order) => tokenSteps(order, shape).map((step) => ({ rows: step })));
    totalSteps = calls.reduce((n, epoch) => n + epoch.length, 0);
  } else {
    const batch = Math.max(1, ws.batchRows);
    calls = orders.map((order) =>
      spanChunks(order, batch * 4).map((part) => ({ rows: part, miniBatchRows: batch })),
    );
    totalSteps = Math.ceil(rows / batch) * ws.epochs;
  }
  const warmupSteps = Math.min(20, Math.floor(totalSteps / 10));
  return { epochs: ws.epochs, calls, totalSteps, warmupSteps };
}

/** Sequences a step looks ahead for one that still fits (`tokenSteps`). */
const STEP_WINDOW = 32;

/**
 * Steps of `order` that each fill one `shape` of segment rows: a step takes the next sequence, then
 * every one of the following `STEP_WINDOW` that still fits (`fitsSegmentRun`, as the learner packs), so
 * the rows are nearly full while the order stays close to the shuffle. A sequence longer than a row is a
 * step of its own.
 */
export function tokenSteps<S extends PackedRowV1>(order: readonly S[], shape: SegmentRunShape): S[][] {
  const queue = [...order];
  const steps: S[][] = [];
  for (let first = queue.shift(); first !== undefined; first = queue.shift()) {
    const step = [first];
    for (let i = 0; i < queue.length && i < STEP_WINDOW; ) {
      const next = queue[i] as S;
      if (fitsSegmentRun([...step, next], shape)) {
        step.push(next);
        queue.splice(i, 1);
      } else i++;
    }
    steps.push(step);
  }
  return steps;
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

/** The epochs: the plan's update calls, epoch by epoch. */
export async function trainEpochs(
  learner: OnnxLearner,
  plan: EpochPlan,
  options: Pick<PretrainOptions, 'signal' | 'onProgress'>,
  log: (line: string) => void,
): Promise<LossPoint[]> {
  const loss = weightedNllLoss();
  const lossCurve: LossPoint[] = [];
  let step = 0;
  for (const [epoch, calls] of plan.calls.entries()) {
    for (const call of calls) {
      throwIfAborted(options.signal);
      const r = await learner.update({
        rows: call.rows,
        loss,
        epochs: 1,
        ...(call.miniBatchRows === undefined ? {} : { miniBatchRows: call.miniBatchRows }),
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
