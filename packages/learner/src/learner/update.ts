/**
 * One `update`: per epoch a seeded shuffle of the units into mini-batches; per mini-batch the current
 * log-probs, the token loss, the backward pass over micro-batches (gradients add up) and an AdamW step.
 */

import {
  emptyUpdateTotals,
  InvalidArgumentError,
  type LearnerUpdateRequest,
  type LearnerUpdateResult,
  type PpoWeightFormV1,
  type Rng,
  spansWithRef,
  type TokenLossInput,
  type TokenLossOutput,
  throwIfAborted,
  type UpdateTotals,
  updateResultOf,
} from '@mage-rl/core';
import { ppoParams } from '../model/ppo-weights';
import type { AdamW, StepResult } from '../optim/adamw';
import { outputData } from '../runtime/session';
import { gatherAt, miniBatches, type Placed, placeSeqs } from './batching';
import {
  type GraphContext,
  loadTrainingGraph,
  type PpoTokenInputs,
  runsOf,
  segmentRowLength,
  type TokenInputs,
  trainingFeeds,
} from './graphs';
import { type LearnerParams, syncWeights } from './params';
import { spanTokens, type Unit, unitOf, validateRows } from './rows';
import type { SampledResponses } from './sampled';
import { scoreFlat } from './scoring';

/** The learner's state that `load` replaces. */
export interface LearnerState {
  rng: Rng;
  optimizer: AdamW;
}

export interface UpdateContext {
  readonly graphs: GraphContext;
  readonly params: LearnerParams;
  readonly state: LearnerState;
  readonly sampled: SampledResponses;
}

/** One `LearnerV1.update`: `epochs` passes over the rows in seeded mini-batches, one AdamW step each. */
export async function runUpdate(
  ctx: UpdateContext,
  request: LearnerUpdateRequest,
): Promise<LearnerUpdateResult> {
  const start = performance.now();
  validateRows(request.rows, ctx.graphs.config);
  const units = request.rows.map(unitOf);
  const epochs = request.epochs ?? 1;
  const rowsPerBatch = Math.max(1, request.miniBatchRows ?? Number.POSITIVE_INFINITY);
  const grads = new Map<string, Float32Array>(
    ctx.params.trainSpecs.map((s) => [
      s.name,
      new Float32Array(ctx.params.trainStore.get(s.name)?.length ?? 0),
    ]),
  );
  const totals = emptyUpdateTotals();
  // One row length for the whole call, so that its mini-batches share their sessions.
  const rowLength = segmentRowLength(ctx.graphs, units);
  const reference = referenceAhead(request.referenceLogprobs);
  for (let epoch = 0; epoch < epochs; epoch++) {
    const { rng, optimizer } = ctx.state;
    const order = rng.split(`update/${optimizer.state.step}/${epoch}`).shuffle([...units]);
    const chunks = doublingChunks([...miniBatches(order, rowsPerBatch)]);
    // The next chunk's reference log-probs are computed while this chunk trains.
    let next = reference.fetch(chunks[0]?.flat() ?? []);
    for (let c = 0; c < chunks.length; c++) {
      await next;
      next = reference.fetch(chunks[c + 1]?.flat() ?? []);
      for (const batch of chunks[c] ?? []) {
        throwIfAborted(request.signal);
        await trainMiniBatch(ctx, request, reference.attach(batch), rowLength, grads, totals);
      }
    }
  }
  return updateResultOf(totals, (performance.now() - start) / 1000);
}

/**
 * Mini-batches in chunks of 1, 2, 4, … : the reference scores a chunk while the one before trains, in
 * few runs, and only the first mini-batch waits for it (training a chunk takes longer than scoring one
 * twice its size).
 */
function doublingChunks<T>(batches: readonly T[]): T[][] {
  const chunks: T[][] = [];
  for (let i = 0, size = 1; i < batches.length; i += size, size *= 2) chunks.push(batches.slice(i, i + size));
  return chunks;
}

/**
 * Reference log-probs of the units that carry none, from `score` (`LearnerUpdateRequest.referenceLogprobs`),
 * each unit scored once per update whatever the epochs: `fetch` scores units, `attach` gives a mini-batch's
 * units with theirs. Without `score` the units stay as they are.
 */
function referenceAhead(score: LearnerUpdateRequest['referenceLogprobs']): {
  fetch(units: readonly Unit[]): Promise<void>;
  attach(batch: readonly Unit[]): readonly Unit[];
} {
  const done = new Map<Unit, Unit>();
  return {
    fetch(units) {
      if (score === undefined) return Promise.resolve();
      const missing = units.filter((u) => !done.has(u) && u.spans.some((sp) => sp.refLogprobs === undefined));
      if (missing.length === 0) return Promise.resolve();
      const rows = missing.map((u) => ({
        tokens: u.tokens,
        spans: u.spans.map(({ start, length }) => ({ start, length })),
      }));
      const scored = score(rows).then((ref) => {
        missing.forEach((u, i) => {
          done.set(u, unitWithRef(u, ref[i] ?? new Float32Array(0)));
        });
      });
      // Awaited after the chunk before trains: a failure in between must not count as unhandled.
      scored.catch(() => undefined);
      return scored;
    },
    attach: (batch) => batch.map((u) => done.get(u) ?? u),
  };
}

/** A unit whose spans carry their reference log-probs, `ref` holding them in span order. */
function unitWithRef(unit: Unit, ref: Float32Array): Unit {
  if (ref.length !== spanTokens(unit)) {
    throw new InvalidArgumentError(
      `referenceLogprobs returned ${ref.length} log-probs for a row of ${spanTokens(unit)} scored tokens.`,
    );
  }
  return { ...unit, spans: spansWithRef(unit.spans, ref) };
}

/** Loss, backward pass and optimizer step of one mini-batch (nothing for a batch without scored tokens). */
async function trainMiniBatch(
  ctx: UpdateContext,
  request: LearnerUpdateRequest,
  batch: readonly Unit[],
  rowLength: number,
  grads: ReadonlyMap<string, Float32Array>,
  totals: UpdateTotals,
): Promise<void> {
  // The weights come from (a) the training pass itself when the loss has a closed form the graph computes;
  // (b) the sampler's log-probs when the rows are fresh from it; (c) no log-probs at all when the loss's
  // weights ignore them; (d) a scoring pass otherwise. In (a) and (c) the training pass's log-probs give
  // the loss and stats reported.
  const form = request.loss.weightForm?.kind === 'ppo' ? request.loss.weightForm : undefined;
  const fresh = form === undefined && batch.every((u) => ctx.sampled.covers(u, ctx.params.version));
  const deferred = form !== undefined || (!fresh && request.loss.usesCurrentLogprobs === false);
  const placed = placeSeqs(batch);
  const nTok = batch.reduce((n, u) => n + spanTokens(u), 0);
  const logprobs = fresh
    ? Float32Array.from(batch.flatMap((u) => u.spans.flatMap((sp) => sp.oldLogprobs)))
    : deferred
      ? new Float32Array(nTok).fill(Number.NaN)
      : await scoreFlat(ctx.graphs, batch);
  if (nTok === 0) return;
  const lossInput: TokenLossInput = { logprobs, ...lossInputsOf(batch, nTok) };
  // Without a closed form the loss runs now for the weights; its output is the one reported unless the
  // training pass's log-probs replace the ones it saw (deferred).
  let before: TokenLossOutput | undefined;
  let tokenInputs: TokenInputs;
  if (form === undefined) {
    before = request.loss(lossInput);
    tokenInputs = { weights: checkedWeights(before, nTok) };
  } else {
    tokenInputs = ppoInputsOf(form, lossInput);
  }
  const entropyWeight = (request.entropyCoef ?? 0) / nTok;
  await backward(
    ctx.graphs,
    placed,
    rowLength,
    tokenInputs,
    entropyWeight,
    grads,
    totals,
    deferred ? logprobs : undefined,
  );
  const lossOut = before !== undefined && !deferred ? before : request.loss(lossInput);
  if (deferred) checkedWeights(lossOut, nTok);
  const result = ctx.state.optimizer.step(ctx.params.trainStore, grads);
  await recordStep(ctx, totals, lossOut, nTok, result);
}

/** The loss's weights, checked to be one per token. */
function checkedWeights(out: TokenLossOutput, nTok: number): Float32Array {
  if (out.weights.length !== nTok) {
    throw new InvalidArgumentError(
      `The token loss returned ${out.weights.length} weights for ${nTok} tokens.`,
    );
  }
  return out.weights;
}

/** The per-token inputs of the in-graph PPO weights (`ppo-weights.ts`). */
function ppoInputsOf(form: PpoWeightFormV1, input: TokenLossInput): PpoTokenInputs {
  if (form.klCoef > 0 && input.refLogprobs === undefined) {
    throw new InvalidArgumentError(
      'The token loss has klCoef > 0 and needs refLogprobs (reference-policy log-probs).',
    );
  }
  return {
    oldLogprobs: input.oldLogprobs,
    refLogprobs: input.refLogprobs ?? new Float32Array(input.oldLogprobs.length),
    advantages: input.advantages,
    scales: Float32Array.from(form.scales(input.rowOfToken)),
    params: ppoParams(form),
  };
}

/** Loss inputs span by span (every span is a row of `rowOfToken`), as for the plain rows. */
function lossInputsOf(batch: readonly Unit[], nTok: number): Omit<TokenLossInput, 'logprobs'> {
  const oldLogprobs = new Float32Array(nTok);
  const hasRef = batch.every((u) => u.spans.every((sp) => sp.refLogprobs !== undefined));
  const refLogprobs = hasRef ? new Float32Array(nTok) : undefined;
  const advantages = new Float32Array(nTok);
  const rowOfToken = new Int32Array(nTok);
  let k = 0;
  let row = 0;
  for (const sp of batch.flatMap((u) => u.spans)) {
    for (let j = 0; j < sp.length; j++) {
      oldLogprobs[k] = sp.oldLogprobs[j] ?? Number.NaN;
      if (refLogprobs) refLogprobs[k] = sp.refLogprobs?.[j] ?? Number.NaN;
      advantages[k] = sp.advantage;
      rowOfToken[k] = row;
      k++;
    }
    row++;
  }
  return { oldLogprobs, ...(refLogprobs ? { refLogprobs } : {}), advantages, rowOfToken };
}

/**
 * Back-propagates −Σ w·log p − Σ entropyWeight·H over micro-batches into `grads` (overwritten: the
 * micro-batches' gradients add up) and adds the scored tokens' entropies to the totals. With
 * `logprobs`, fills it with the training pass's log-probs. `rowLength`: see `runsOf`.
 */
async function backward(
  ctx: GraphContext,
  placed: readonly Placed[],
  rowLength: number,
  tokenInputs: TokenInputs,
  entropyWeight: number,
  grads: ReadonlyMap<string, Float32Array>,
  totals: UpdateTotals,
  logprobs: Float32Array | undefined,
): Promise<void> {
  let first = true;
  for (const p of runsOf(ctx, placed, rowLength)) {
    const key = await loadTrainingGraph(ctx, p, !('weights' in tokenInputs));
    const out = await ctx.runner.run(key, trainingFeeds(p, tokenInputs, entropyWeight));
    if (logprobs !== undefined) {
      const lp = outputData(out, 'logprobs', Float32Array);
      for (const { offset, positions } of p.rows) logprobs.set(gatherAt(lp, positions), offset);
    }
    const entropy = outputData(out, 'entropy', Float32Array);
    for (const { positions } of p.rows) for (const h of gatherAt(entropy, positions)) totals.entropy += h;
    // The first micro-batch's gradients are copied (no zeroing and adding over a large embedding).
    for (const [name, acc] of grads) {
      const g = outputData(out, `grad.${name}`, Float32Array);
      if (first) acc.set(g);
      else addInto(acc, g);
    }
    first = false;
  }
  if (first) for (const g of grads.values()) g.fill(0);
}

/** `acc += src`, element by element (the gradient accumulation kernel). */
function addInto(acc: Float32Array, src: Float32Array): void {
  for (let i = 0; i < acc.length; i++) acc[i] = (acc[i] as number) + (src[i] as number);
}

/** Adds a mini-batch's loss, stats and step to the totals; uploads the weights after a step. */
async function recordStep(
  ctx: UpdateContext,
  totals: UpdateTotals,
  lossOut: TokenLossOutput,
  nTok: number,
  result: StepResult,
): Promise<void> {
  totals.batches++;
  totals.loss += lossOut.loss;
  for (const [key, v] of Object.entries(lossOut.stats)) totals.stats[key] = (totals.stats[key] ?? 0) + v;
  totals.tokens += nTok;
  if (result.skipped) {
    totals.skipped++;
  } else {
    totals.steps++;
    totals.gradNorm += result.gradNorm;
    await syncWeights(ctx.graphs.runner, ctx.params, true);
  }
}
