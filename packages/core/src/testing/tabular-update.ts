/** `LearnerV1.update` of the tabular learner: epochs of shuffled mini-batches, NaN/Inf steps skipped. */

import type { LearnerRowV1, LearnerUpdateRequest, LearnerUpdateResult } from '@mage-rl/spec';
import { InvalidArgumentError, NumericInstabilityError, throwIfAborted } from '@mage-rl/spec';
import { unpackRows } from '../training/packing';
import { emptyUpdateTotals, type UpdateTotals, updateResultOf } from '../training/update-totals';
import { applyStep, gradients, gradNorm, type KeyedRow, tokenLossInput } from './tabular-gradient';
import { decodePromptKey } from './tabular-prompt-key';
import { checkRows, type TabularState } from './tabular-state';

/** Trains on the request's rows (packed rows as their spans' plain rows) and reports the averages. */
export async function updateTabular(
  state: TabularState,
  request: LearnerUpdateRequest,
): Promise<LearnerUpdateResult> {
  const start = performance.now();
  const rows = unpackRows(request.rows);
  checkRows(state, rows);
  const epochs = request.epochs ?? 1;
  const mbRows = Math.max(1, request.miniBatchRows ?? rows.length);
  const totals = emptyUpdateTotals();
  for (let epoch = 0; epoch < epochs; epoch++) {
    const shuffled = state.rng.split(`update/${state.step}/${epoch}`).shuffle([...rows]);
    for (let s = 0; s < shuffled.length; s += mbRows) {
      throwIfAborted(request.signal);
      trainMiniBatch(state, request, shuffled.slice(s, s + mbRows), totals);
    }
  }
  return updateResultOf(totals, (performance.now() - start) / 1000);
}

/**
 * One optimizer step on `rows`, or a skipped one when the loss or the gradient norm is not finite
 * (`NumericInstabilityError` after `maxConsecutiveSkips` in a row). Rows without tokens are no step.
 */
function trainMiniBatch(
  state: TabularState,
  request: LearnerUpdateRequest,
  rows: readonly LearnerRowV1[],
  totals: UpdateTotals,
): void {
  const tokens = rows.reduce((acc, r) => acc + r.responseTokens.length, 0);
  if (tokens === 0) return;
  const batch: KeyedRow[] = rows.map((row) => ({ row, key: decodePromptKey(row.promptTokens) }));
  const out = request.loss(tokenLossInput(state, batch));
  if (out.weights.length !== tokens) {
    throw new InvalidArgumentError(
      `The token loss returned ${out.weights.length} weights for ${tokens} tokens.`,
    );
  }
  const { grads, entropy } = gradients(state, batch, out.weights, request.entropyCoef ?? 0, tokens);
  const norm = gradNorm(grads);
  if (!Number.isFinite(norm) || !Number.isFinite(out.loss)) {
    totals.skipped++;
    state.consecutiveSkips++;
    if (state.consecutiveSkips >= state.settings.maxConsecutiveSkips) {
      throw new NumericInstabilityError(
        `Loss or gradients were NaN/Inf in ${state.consecutiveSkips} consecutive steps; stopping with the last good weights.`,
        { context: { step: state.step, consecutiveSkips: state.consecutiveSkips } },
      );
    }
    return;
  }
  state.consecutiveSkips = 0;
  totals.batches++;
  totals.tokens += tokens;
  totals.entropy += entropy;
  totals.loss += out.loss;
  for (const [key, v] of Object.entries(out.stats)) totals.stats[key] = (totals.stats[key] ?? 0) + v;
  const { maxGradNorm } = state.settings;
  applyStep(state, grads, norm > maxGradNorm ? maxGradNorm / (norm + 1e-6) : 1);
  totals.steps++;
  totals.gradNorm += norm;
}
