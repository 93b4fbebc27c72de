/**
 * Rollout metrics (SPEC §6, issue 6 item 4): per attempt, cumulative success (pass@k), independent
 * success, draw rate and mean return; invalid-action rate, response and reflection lengths; overall and
 * per opponent, with 95% Wilson intervals for every rate.
 */

import { InvalidArgumentError } from '../errors';
import type { MetaEpisodeBatchRecord, RowRecord, SlotRecord } from '../records';
import { type RateV1, rate } from './wilson';

export interface AttemptMetricsV1 {
  /** 0-based attempt k. */
  readonly attempt: number;
  /** Slots that played attempt k (fewer than all after early stops). */
  readonly played: number;
  /** pass@(k+1): slots that succeeded in any attempt ≤ k, over all slots. */
  readonly passAtK: RateV1;
  /**
   * Success of attempt k over the slots that played it. With early stop this is conditional on the
   * earlier attempts having failed; without early stop it is the unconditional per-attempt rate.
   */
  readonly success: RateV1;
  /** Draws of attempt k over the slots that played it. */
  readonly draw: RateV1;
  /** Mean R_k over the slots that played attempt k (0 when none did). */
  readonly meanReturn: number;
}

export interface MetricsSummaryV1 {
  /** Number of meta-episodes (slots). */
  readonly metaEpisodes: number;
  readonly perAttempt: readonly AttemptMetricsV1[];
  /** Mean episode return over every played attempt. */
  readonly meanReturn: number;
  /** Invalid play turns over all play turns. */
  readonly invalidActionRate: RateV1;
  /** Reflect turns missing their `<remark>` tag over all reflect turns. */
  readonly invalidReflectionRate: RateV1;
  readonly playTurns: number;
  readonly reflectTurns: number;
  /** Mean play-response length in characters and in tokens (tokens 0 for text-only policies). */
  readonly meanResponseChars: number;
  readonly meanResponseTokens: number;
  /** Mean reflect-response length in characters and in tokens. */
  readonly meanReflectionChars: number;
  readonly meanReflectionTokens: number;
}

export interface MetaEpisodeMetricsV1 {
  readonly attempts: number;
  readonly overall: MetricsSummaryV1;
  /** Keyed by opponent id (`none` for single-agent envs), sorted by id. */
  readonly byOpponent: Readonly<Record<string, MetricsSummaryV1>>;
}

const mean = (sum: number, n: number): number => (n > 0 ? sum / n : 0);

/** Metrics of a set of slots and their rows; `attempts` is K. */
export function summarizeSlots(
  slots: readonly SlotRecord[],
  rows: readonly RowRecord[],
  attempts: number,
): MetricsSummaryV1 {
  if (!Number.isInteger(attempts) || attempts < 1) {
    throw new InvalidArgumentError(`attempts must be a positive integer, got ${attempts}.`);
  }
  const played = new Int32Array(attempts);
  const wins = new Int32Array(attempts);
  const draws = new Int32Array(attempts);
  const passes = new Int32Array(attempts);
  const returns = new Float64Array(attempts);
  let returnSum = 0;
  let attemptsPlayed = 0;
  for (const slot of slots) {
    let firstWin = attempts;
    for (const a of slot.attempts) {
      if (a.attempt < 0 || a.attempt >= attempts) continue;
      const k = a.attempt;
      played[k] = (played[k] as number) + 1;
      returns[k] = (returns[k] as number) + a.return;
      returnSum += a.return;
      attemptsPlayed++;
      if (a.outcome.success) {
        wins[k] = (wins[k] as number) + 1;
        firstWin = Math.min(firstWin, a.attempt);
      }
      if (a.outcome.draw) draws[k] = (draws[k] as number) + 1;
    }
    for (let k = firstWin; k < attempts; k++) passes[k] = (passes[k] as number) + 1;
  }
  let playTurns = 0;
  let invalidPlay = 0;
  let playChars = 0;
  let playTokens = 0;
  let reflectTurns = 0;
  let invalidReflect = 0;
  let reflectChars = 0;
  let reflectTokens = 0;
  for (const row of rows) {
    if (row.phase === 'play') {
      playTurns++;
      if (!row.valid) invalidPlay++;
      playChars += row.responseText.length;
      playTokens += row.responseTokens.length;
    } else {
      reflectTurns++;
      if (!row.valid) invalidReflect++;
      reflectChars += row.responseText.length;
      reflectTokens += row.responseTokens.length;
    }
  }
  const perAttempt: AttemptMetricsV1[] = [];
  for (let k = 0; k < attempts; k++) {
    const n = played[k] as number;
    perAttempt.push({
      attempt: k,
      played: n,
      passAtK: rate(passes[k] as number, slots.length),
      success: rate(wins[k] as number, n),
      draw: rate(draws[k] as number, n),
      meanReturn: mean(returns[k] as number, n),
    });
  }
  return {
    metaEpisodes: slots.length,
    perAttempt,
    meanReturn: mean(returnSum, attemptsPlayed),
    invalidActionRate: rate(invalidPlay, playTurns),
    invalidReflectionRate: rate(invalidReflect, reflectTurns),
    playTurns,
    reflectTurns,
    meanResponseChars: mean(playChars, playTurns),
    meanResponseTokens: mean(playTokens, playTurns),
    meanReflectionChars: mean(reflectChars, reflectTurns),
    meanReflectionTokens: mean(reflectTokens, reflectTurns),
  };
}

/** Overall and per-opponent metrics of a batch (or of several batches' slots and rows). */
export function computeMetrics(
  batch: Pick<MetaEpisodeBatchRecord, 'slots' | 'rows' | 'attempts'>,
): MetaEpisodeMetricsV1 {
  const slotsBy = new Map<string, SlotRecord[]>();
  const rowsBy = new Map<string, RowRecord[]>();
  const opponentOfSlot = new Map<string, string>();
  for (const slot of batch.slots) {
    const id = slot.task.opponentId ?? 'none';
    opponentOfSlot.set(slot.slot, id);
    const list = slotsBy.get(id) ?? [];
    list.push(slot);
    slotsBy.set(id, list);
  }
  for (const row of batch.rows) {
    const id = opponentOfSlot.get(row.slot) ?? row.opponentId ?? 'none';
    const list = rowsBy.get(id) ?? [];
    list.push(row);
    rowsBy.set(id, list);
  }
  const byOpponent: Record<string, MetricsSummaryV1> = {};
  for (const id of [...slotsBy.keys()].sort()) {
    byOpponent[id] = summarizeSlots(slotsBy.get(id) ?? [], rowsBy.get(id) ?? [], batch.attempts);
  }
  return {
    attempts: batch.attempts,
    overall: summarizeSlots(batch.slots, batch.rows, batch.attempts),
    byOpponent,
  };
}

/** Several batches as one (for evaluation in waves or across iterations); they must share K. */
export function mergeBatches(batches: readonly MetaEpisodeBatchRecord[]): MetaEpisodeBatchRecord {
  const first = batches[0];
  if (!first) throw new InvalidArgumentError('mergeBatches() needs at least one batch.');
  for (const b of batches) {
    if (b.attempts !== first.attempts) {
      throw new InvalidArgumentError(`mergeBatches(): attempts differ (${first.attempts} vs ${b.attempts}).`);
    }
  }
  return {
    iteration: first.iteration,
    attempts: first.attempts,
    groups: batches.flatMap((b) => b.groups),
    slots: batches.flatMap((b) => b.slots),
    rows: batches.flatMap((b) => b.rows),
  };
}
