/** Running sums over the mini-batches of one `LearnerV1.update`, and the result they average to. */

import type { LearnerUpdateResult } from '@mage-rl/spec';

/** Sums over the mini-batches of one update (a skipped step counts in `skipped` only). */
export interface UpdateTotals {
  steps: number;
  skipped: number;
  /** Mini-batches whose loss and stats were added. */
  batches: number;
  tokens: number;
  loss: number;
  gradNorm: number;
  entropy: number;
  readonly stats: Record<string, number>;
}

/** The totals before the first mini-batch. */
export function emptyUpdateTotals(): UpdateTotals {
  return { steps: 0, skipped: 0, batches: 0, tokens: 0, loss: 0, gradNorm: 0, entropy: 0, stats: {} };
}

/** The update's result: means per mini-batch (loss, stats), per step (gradient norm), per token (entropy). */
export function updateResultOf(totals: UpdateTotals, seconds: number): LearnerUpdateResult {
  const stats: Record<string, number> = {};
  for (const [key, v] of Object.entries(totals.stats)) stats[key] = v / Math.max(1, totals.batches);
  return {
    steps: totals.steps,
    skippedSteps: totals.skipped,
    loss: totals.loss / Math.max(1, totals.batches),
    gradNorm: totals.gradNorm / Math.max(1, totals.steps),
    entropy: totals.entropy / Math.max(1, totals.tokens),
    tokens: totals.tokens,
    seconds,
    stats,
  };
}
