/**
 * The update phase of one iteration: advantages of the rollout's rows (validated), the learner rows (packed
 * per slot and with reference log-probs when configured), `learner.update`, and the iteration's `update`
 * statistics with the credit diagnostics.
 */

import type {
  LearnerInputRowV1,
  LearnerRowV1,
  LearnerV1,
  LogprobRowV1,
  MetaEpisodeBatchRecord,
  RowRecord,
} from '@mage-rl/spec';
import { InvalidArgumentError, MageError, NumericInstabilityError } from '@mage-rl/spec';
import { creditDiagnostics } from './credit-diagnostics';
import type { UpdateStatsV1 } from './events';
import { type ResolvedTrainingConfig, TRAINING_DEFAULTS, type TrainingOptions } from './options';
import { isPackedRow, joinSpanLogprobs, packRows, spansWithRef, unpackLogprobRows } from './packing';
import { peakRssBytes } from './peak-rss';
import { refusedRetryRows } from './refused-retry';

const now = (): number => performance.now();

/**
 * Runs the update of `iteration` on the rollout `batch`; `lastCheckpoint` is named if it fails. Returns the
 * statistics and the rows' advantages (for the replay record).
 */
export async function updatePhase<S, A>(
  options: TrainingOptions<S, A>,
  config: ResolvedTrainingConfig,
  iteration: number,
  batch: MetaEpisodeBatchRecord,
  lastCheckpoint: string | null,
): Promise<{ stats: UpdateStatsV1; advantages: Float64Array }> {
  const t0 = now();
  const rows = batch.rows;
  const trainable: number[] = [];
  rows.forEach((r, i) => {
    if (r.responseTokens.length > 0) trainable.push(i);
  });
  const advantages = computeAdvantagesChecked(options.advantages, rows);
  const learnerRows: LearnerRowV1[] = trainable.map((i) => {
    const r = rows[i]!;
    return {
      promptTokens: r.promptTokens,
      responseTokens: r.responseTokens,
      oldLogprobs: r.logprobs,
      advantage: advantages[i]!,
    };
  });
  // Refused-action rows, scored at the current weights (their π_old), each packed on its own.
  const refused = refusedRetryRows(
    rows,
    advantages,
    config.refusedRetry ?? TRAINING_DEFAULTS.update.refusedRetry,
  );
  if (refused.length > 0) {
    const old = await options.learner.logprobs(refused);
    refused.forEach((r, k) => {
      const { promptTokens, responseTokens, advantage } = r;
      learnerRows.push({ promptTokens, responseTokens, oldLogprobs: Array.from(old[k] ?? []), advantage });
    });
  }
  const input = await learnerInput(options, learnerRows, (i) =>
    i < trainable.length ? rows[trainable[i]!]!.slot : `refused:${i}`,
  );
  const result =
    input.rows.length === 0
      ? null
      : await updateLearner(options.learner, iteration, lastCheckpoint, {
          ...input,
          loss: options.loss,
          entropyCoef: config.entropyCoef,
          epochs: config.epochs,
          ...(config.miniBatchRows === null ? {} : { miniBatchRows: config.miniBatchRows }),
          ...(options.signal ? { signal: options.signal } : {}),
        });
  const stats = updateStats(iteration, result, {
    advantages,
    batch,
    trainedRows: result === null ? 0 : trainable.length,
    refusedRetryRows: refused.length,
    seconds: (now() - t0) / 1000,
  });
  return { stats, advantages };
}

function finiteOrNull(value: number | undefined): number | null {
  return value === undefined || !Number.isFinite(value) ? null : value;
}

/**
 * The rows `learner.update` gets: packed per slot (`packRows`) when the learner takes packed rows and
 * `update.packRows` is on (the default), plain otherwise; with reference log-probs when a reference is set
 * (scored packed when the reference takes packed rows too). A learner with `referenceAhead` gets the rows
 * without them and a function that scores them (it scores each chunk of mini-batches while the one before
 * trains).
 */
async function learnerInput<S, A>(
  options: TrainingOptions<S, A>,
  rows: readonly LearnerRowV1[],
  slotOf: (index: number) => string,
): Promise<Pick<LearnerUpdate, 'rows' | 'referenceLogprobs'>> {
  const packing =
    (options.update?.packRows ?? TRAINING_DEFAULTS.update.packRows) ? options.learner.packedRows : undefined;
  const reference = options.reference;
  const maxTokens = Math.min(
    packing?.maxTokens ?? Number.POSITIVE_INFINITY,
    reference?.packedRows?.maxTokens ?? Number.POSITIVE_INFINITY,
  );
  const input: readonly LearnerInputRowV1[] =
    packing === undefined ? rows : packRows(rows, { maxTokens, groupOf: (_, i) => slotOf(i) }).rows;
  if (!reference || input.length === 0) return { rows: input };
  const scored = (r: readonly LogprobRowV1[]) => referenceLogprobs(reference, r);
  if (options.learner.referenceAhead === true) return { rows: input, referenceLogprobs: scored };
  const ref = await scored(input);
  return { rows: input.map((r, i) => withRef(r, ref[i] ?? new Float32Array(0))) };
}

/**
 * The reference's log-probs of `rows` in `LearnerV1.logprobs`' layout; packed rows go to a reference
 * without packed rows as their spans, plain rows.
 */
async function referenceLogprobs(
  reference: Pick<LearnerV1, 'logprobs' | 'packedRows'>,
  rows: readonly LogprobRowV1[],
): Promise<Float32Array[]> {
  if (reference.packedRows !== undefined || !rows.some(isPackedRow)) return reference.logprobs(rows);
  const ref = await reference.logprobs(unpackLogprobRows(rows));
  let k = 0;
  return rows.map((r) => {
    if (!isPackedRow(r)) return ref[k++] ?? new Float32Array(0);
    return joinSpanLogprobs(r.spans.map(() => ref[k++] ?? new Float32Array(0)));
  });
}

/** A row with its reference log-probs (a packed row's spans' from one concatenated array). */
function withRef(row: LearnerInputRowV1, ref: Float32Array): LearnerInputRowV1 {
  return isPackedRow(row)
    ? { tokens: row.tokens, spans: spansWithRef(row.spans, ref) }
    : { ...row, refLogprobs: Array.from(ref) };
}

type LearnerUpdate = Parameters<LearnerV1['update']>[0];
type LearnerUpdateResult = Awaited<ReturnType<LearnerV1['update']>>;

/** `learner.update`, with a numeric failure turned into an error that names the last good checkpoint. */
async function updateLearner(
  learner: LearnerV1,
  iteration: number,
  lastCheckpoint: string | null,
  request: LearnerUpdate,
): Promise<LearnerUpdateResult> {
  try {
    return await learner.update(request);
  } catch (error) {
    if (MageError.isInstance(error) && error.code === 'NUMERIC_INSTABILITY') {
      throw new NumericInstabilityError(
        `Training stopped in iteration ${iteration}: ${error.message} No checkpoint was written after the failed update; ${
          lastCheckpoint === null
            ? 'there is no earlier checkpoint.'
            : `the last good checkpoint is ${lastCheckpoint}. Resume from it, e.g. with a lower learning rate.`
        }`,
        { cause: error, context: { iteration, lastCheckpoint } },
      );
    }
    throw error;
  }
}

/** The `update` line of an iteration; `result` is null when no row had response tokens. */
function updateStats(
  iteration: number,
  result: LearnerUpdateResult | null,
  run: {
    readonly advantages: Float64Array;
    readonly batch: MetaEpisodeBatchRecord;
    readonly trainedRows: number;
    readonly refusedRetryRows: number;
    readonly seconds: number;
  },
): UpdateStatsV1 {
  const { advantages, seconds } = run;
  let mean = 0;
  for (const a of advantages) mean += a;
  mean /= Math.max(1, advantages.length);
  let variance = 0;
  for (const a of advantages) variance += (a - mean) ** 2;
  variance /= Math.max(1, advantages.length);
  const tokens = result?.tokens ?? 0;
  const stats = result?.stats ?? {};
  return {
    iteration,
    steps: result?.steps ?? 0,
    skippedSteps: result?.skippedSteps ?? 0,
    loss: result === null ? 0 : finiteOrNull(result.loss),
    kl: finiteOrNull(stats.refKl ?? stats.kl),
    approxKl: finiteOrNull(stats.approxKl),
    entropy: result?.entropy ?? 0,
    clipFraction: finiteOrNull(stats.clipFraction),
    gradNorm: result?.gradNorm ?? 0,
    tokens,
    trainedRows: run.trainedRows,
    skippedRows: advantages.length - run.trainedRows,
    advantageMean: mean,
    advantageStd: Math.sqrt(variance),
    credit: creditDiagnostics(run.batch, advantages),
    stats: Object.fromEntries(
      Object.entries({
        ...stats,
        ...(run.refusedRetryRows > 0 ? { refusedRetryRows: run.refusedRetryRows } : {}),
      }).filter(([, v]) => Number.isFinite(v)),
    ),
    timing: { seconds, tokensPerSecond: seconds > 0 ? tokens / seconds : 0, peakRssBytes: peakRssBytes() },
  };
}

function computeAdvantagesChecked(
  fn: (rows: readonly RowRecord[]) => ArrayLike<number>,
  rows: readonly RowRecord[],
): Float64Array {
  const values = fn(rows);
  if (values.length !== rows.length) {
    throw new InvalidArgumentError(
      `The advantage function returned ${values.length} values for ${rows.length} rows.`,
      { context: { expected: rows.length, got: values.length } },
    );
  }
  const out = Float64Array.from(values);
  const bad = out.findIndex((v) => !Number.isFinite(v));
  if (bad >= 0) {
    throw new InvalidArgumentError(`The advantage function returned ${out[bad]} for row ${bad}.`, {
      context: { row: bad, slot: rows[bad]?.slot, attempt: rows[bad]?.attempt },
    });
  }
  return out;
}
