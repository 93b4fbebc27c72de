/**
 * One `LearnerV1.update` on the service: epochs of shuffled mini-batches, each a `forward_backward`
 * (after a scoring `forward` in the exact mapping, `loss-mapping.ts`) and an `optim_step`; then new
 * sampler weights for the policy. Mini-batch order is keyed by the optimizer step, so a resumed learner
 * shuffles as the uninterrupted one did.
 */

import {
  emptyUpdateTotals,
  InvalidArgumentError,
  type LearnerRowV1,
  type LearnerUpdateRequest,
  type LearnerUpdateResult,
  NumericInstabilityError,
  type Rng,
  type TokenLossOutput,
  throwIfAborted,
  tokenLossInputOf,
  type UpdateTotals,
  updateResultOf,
} from '@mage-rl/core';
import type { AdamParams } from '../api/wire';
import { datumOf, responseValues, type ScoredRow } from './datums';
import { builtinLossInput, type TinkerLossMapping, weightedCrossEntropyInput } from './loss-mapping';
import type { ModelCalls } from './model-calls';

/** What the learner's operations share: its model, settings and the state a checkpoint records. */
export interface LearnerContext {
  readonly calls: ModelCalls;
  readonly baseModel: string;
  readonly loraRank: number;
  readonly loss: TinkerLossMapping;
  readonly adam: AdamParams;
  readonly maxConsecutiveSkips: number;
  readonly maxDatumsPerRequest: number;
  readonly rng: Rng;
  readonly state: { step: number; consecutiveSkips: number; samplerPath: string | null };
}

/** Current log-probs of the rows' response tokens, in chunks of `maxDatumsPerRequest`. */
export async function scoreRows(
  ctx: LearnerContext,
  rows: readonly ScoredRow[],
  signal?: AbortSignal,
): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let start = 0; start < rows.length; start += ctx.maxDatumsPerRequest) {
    const chunk = rows.slice(start, start + ctx.maxDatumsPerRequest);
    const data = chunk.map((row, i) =>
      datumOf(row, start + i, { weights: new Array<number>(row.responseTokens.length).fill(1) }),
    );
    const result = await ctx.calls.forward({ data, loss_fn: 'cross_entropy' }, signal);
    chunk.forEach((row, i) => {
      out.push(responseValues(row, result.loss_fn_outputs[i]?.logprobs, 'log-probs'));
    });
  }
  return out;
}

/** Saves sampler weights of the current step; the policy samples from them from now on. */
export async function publishSampler(ctx: LearnerContext, signal?: AbortSignal): Promise<void> {
  ctx.state.samplerPath = await ctx.calls.saveSampler(`mage-sampler-step-${ctx.state.step}`, signal);
}

const isPlainRow = (row: object): row is LearnerRowV1 => 'promptTokens' in row && 'responseTokens' in row;

/**
 * Sends one mini-batch's gradient; returns the loop's loss at the pre-step log-probs, or null when the
 * exact mapping's loss is not finite (nothing was sent; the step is skipped).
 */
async function backward(
  ctx: LearnerContext,
  batch: readonly LearnerRowV1[],
  request: LearnerUpdateRequest,
): Promise<TokenLossOutput | null> {
  const { signal } = request;
  if (ctx.loss.kind === 'exact') {
    const out = request.loss(tokenLossInputOf(batch, await scoreRows(ctx, batch, signal)));
    if (!(Number.isFinite(out.loss) && out.weights.every(Number.isFinite))) return null;
    await ctx.calls.forwardBackward(weightedCrossEntropyInput(batch, out.weights), signal);
    return out;
  }
  // Built-in losses back-propagate on the service: non-finite inputs are refused before sending.
  if (!batch.every((r) => Number.isFinite(r.advantage) && r.oldLogprobs.every(Number.isFinite))) {
    throw new InvalidArgumentError(
      `A row of the mini-batch at optimizer step ${ctx.state.step} has a non-finite advantage or sampling log-prob.`,
    );
  }
  const result = await ctx.calls.forwardBackward(builtinLossInput(ctx.loss, batch), signal);
  const current = batch.map((row, i) =>
    responseValues(row, result.loss_fn_outputs[i]?.logprobs, 'log-probs'),
  );
  return request.loss(tokenLossInputOf(batch, current));
}

function addStep(totals: UpdateTotals, out: TokenLossOutput, tokens: number): void {
  totals.steps++;
  totals.batches++;
  totals.tokens += tokens;
  totals.loss += out.loss;
  for (const [key, v] of Object.entries(out.stats)) totals.stats[key] = (totals.stats[key] ?? 0) + v;
}

export async function updateOnService(
  ctx: LearnerContext,
  request: LearnerUpdateRequest,
): Promise<LearnerUpdateResult> {
  const started = performance.now();
  const rows = request.rows.map((row, i) => {
    if (!isPlainRow(row))
      throw new InvalidArgumentError(`Row ${i} is packed; the Tinker learner takes plain rows only.`);
    return row;
  });
  const perBatch = request.miniBatchRows ?? rows.length;
  const totals = emptyUpdateTotals();
  const { state } = ctx;
  for (let epoch = 0; epoch < (request.epochs ?? 1); epoch++) {
    const order = ctx.rng.split(`order-${state.step}`).shuffle(rows.map((_, i) => i));
    for (let start = 0; start < order.length; start += perBatch) {
      throwIfAborted(request.signal);
      const batch = order.slice(start, start + perBatch).map((i) => rows[i] as LearnerRowV1);
      const out = await backward(ctx, batch, request);
      if (out === null) {
        state.consecutiveSkips++;
        totals.skipped++;
        if (state.consecutiveSkips >= ctx.maxConsecutiveSkips) {
          throw new NumericInstabilityError(
            `The token loss was not finite in ${state.consecutiveSkips} mini-batches in a row (optimizer step ${state.step}).`,
            { context: { step: state.step } },
          );
        }
        continue;
      }
      await ctx.calls.optimStep(ctx.adam, request.signal);
      state.step++;
      state.consecutiveSkips = 0;
      addStep(
        totals,
        out,
        batch.reduce((k, r) => k + r.responseTokens.length, 0),
      );
    }
  }
  if (totals.steps > 0) await publishSampler(ctx, request.signal);
  return updateResultOf(totals, (performance.now() - started) / 1000);
}
