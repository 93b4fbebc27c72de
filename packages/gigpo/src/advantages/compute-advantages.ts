/**
 * GiGPO and GRPO advantages over the rows of one iteration (architecture/gigpo.md).
 *
 * Work is done in a few linear passes over typed arrays: ids are interned once (group, slot, anchor),
 * per-attempt sums live in flat arrays indexed by `slotOffset[slot] + attempt`, and no per-row objects are
 * created except the final output records.
 */

import { InvalidArgumentError } from '@mage-rl/core';
import { penaltyFree, rowPenaltyResolved } from '../penalties/penalties';
import { fillAttemptValues } from '../returns/step-returns';
import { resolveAdvantageOptions } from './options';
import type { AdvantageOptions, AdvantageRowInput, AdvantageRowOutput } from './types';

/** Added to the unbiased std under `mean-std`. */
export const STD_EPSILON = 1e-6;

/** Column-wise results, one entry per input row, in input order. */
export interface AdvantageColumns {
  readonly returns: Float64Array;
  readonly scores: Float64Array;
  readonly episodeAdvantages: Float64Array;
  readonly stepAdvantages: Float64Array;
  readonly advantages: Float64Array;
}

function badRow(index: number, message: string, row: unknown): never {
  throw new InvalidArgumentError(`computeAdvantages: rows[${index}] ${message}`, { context: { index, row } });
}

/**
 * Like `computeAdvantages` but returns typed-array columns (no per-row objects). Rows of a slot must
 * arrive in chronological order (attempt numbers never decrease inside a slot).
 */
export function computeAdvantageColumns(
  rows: readonly AdvantageRowInput[],
  options: AdvantageOptions = {},
): AdvantageColumns {
  const o = resolveAdvantageOptions(options);
  const n = rows.length;
  const returns = new Float64Array(n);
  const scores = new Float64Array(n);
  const episodeAdvantages = new Float64Array(n);
  const stepAdvantages = new Float64Array(n);
  const advantages = new Float64Array(n);
  const out: AdvantageColumns = { returns, scores, episodeAdvantages, stepAdvantages, advantages };
  if (n === 0) return out;

  // Pass 1: intern groups and slots, validate rows.
  const rowGroup = new Int32Array(n);
  const rowSlot = new Int32Array(n);
  const isPlay = new Uint8Array(n);
  const slotGroup = new Int32Array(n);
  const slotLast = new Int32Array(n);
  const groupIndex = new Map<string, number>();
  const slotIndex = new Map<string, number>();
  let nGroups = 0;
  let nSlots = 0;
  let maxAttempt = 0;
  for (let i = 0; i < n; i++) {
    const row = rows[i] as AdvantageRowInput;
    const attempt = row.attempt;
    if (!(Number.isInteger(attempt) && attempt >= 0)) badRow(i, 'attempt must be an integer >= 0.', row);
    if (row.phase === 'play') isPlay[i] = 1;
    else if (row.phase !== 'reflect') badRow(i, "phase must be 'play' or 'reflect'.", row);
    if (!Number.isFinite(row.reward)) badRow(i, 'reward must be a finite number.', row);
    if (typeof row.anchor !== 'string') badRow(i, 'anchor must be a string.', row);
    if (!(row.responseTokens >= 0)) badRow(i, 'responseTokens must be a number >= 0.', row);
    let g = groupIndex.get(row.group);
    if (g === undefined) {
      if (typeof row.group !== 'string') badRow(i, 'group must be a string.', row);
      g = nGroups++;
      groupIndex.set(row.group, g);
    }
    let s = slotIndex.get(row.slot);
    if (s === undefined) {
      if (typeof row.slot !== 'string') badRow(i, 'slot must be a string.', row);
      s = nSlots++;
      slotIndex.set(row.slot, s);
      slotGroup[s] = g;
    } else {
      if (slotGroup[s] !== g)
        badRow(i, `belongs to slot '${row.slot}' which already appeared in another group.`, row);
      if (attempt < (slotLast[s] as number)) {
        badRow(
          i,
          `attempt ${attempt} comes after attempt ${slotLast[s]} of slot '${row.slot}': rows must be chronological.`,
          row,
        );
      }
    }
    slotLast[s] = attempt;
    if (attempt > maxAttempt) maxAttempt = attempt;
    rowGroup[i] = g;
    rowSlot[i] = s;
  }

  // Pass 2: per-attempt episode rewards R_k and play-turn counts T_k.
  const slotOffset = new Int32Array(nSlots + 1);
  for (let s = 0; s < nSlots; s++)
    slotOffset[s + 1] = (slotOffset[s] as number) + (slotLast[s] as number) + 1;
  const nAttempts = slotOffset[nSlots] as number;
  const attSum = new Float64Array(nAttempts);
  const attTurns = new Int32Array(nAttempts);
  const rowAtt = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const a = (slotOffset[rowSlot[i] as number] as number) + (rows[i] as AdvantageRowInput).attempt;
    rowAtt[i] = a;
    if (isPlay[i] === 1) {
      attSum[a] = (attSum[a] as number) + (rows[i] as AdvantageRowInput).reward;
      attTurns[a] = (attTurns[a] as number) + 1;
    }
  }

  // Meta-rewards r̃ and attempt values per slot.
  const meta = new Float64Array(nAttempts);
  const values = new Float64Array(nAttempts);
  const heads = new Float64Array(nAttempts);
  const differential = o.metaReward === 'differential';
  for (let s = 0; s < nSlots; s++) {
    const start = slotOffset[s] as number;
    const end = slotOffset[s + 1] as number;
    let previous = 0;
    for (let a = start; a < end; a++) {
      const r = attSum[a] as number;
      meta[a] = differential ? r - previous : r;
      previous = r;
    }
    fillAttemptValues(meta, attTurns, o.stepGamma, o.trajGamma, values, heads, start, end - start);
  }

  // Pass 3: step returns and scores.
  const turnSeen = new Int32Array(nAttempts);
  const stepGamma = o.stepGamma;
  const noPenalty = penaltyFree(o);
  for (let i = 0; i < n; i++) {
    const a = rowAtt[i] as number;
    let score: number;
    if (isPlay[i] === 1) {
      const t = (turnSeen[a] as number) + 1;
      turnSeen[a] = t;
      const left = (attTurns[a] as number) - t;
      returns[i] = left === 0 ? (values[a] as number) : stepGamma ** left * (values[a] as number);
      score = meta[a] as number;
    } else {
      returns[i] = heads[a] as number;
      score = 0;
    }
    if (!noPenalty) {
      const row = rows[i] as AdvantageRowInput;
      score -= rowPenaltyResolved(row.valid, row.responseTokens, o);
    }
    scores[i] = score;
  }

  // Episode part.
  const meanStd = o.normalization === 'mean-std';
  if (o.estimator === 'grpo') {
    const attSlot = new Int32Array(nAttempts);
    for (let s = 0; s < nSlots; s++) attSlot.fill(s, slotOffset[s] as number, slotOffset[s + 1] as number);
    unitBaseline(
      scores,
      rowAtt,
      nAttempts,
      (a) => slotGroup[attSlot[a] as number] as number,
      rowGroup,
      nGroups,
      meanStd,
      episodeAdvantages,
    );
  } else if (o.episodeBaseline === 'attempt') {
    attemptBaseline(scores, rows, rowAtt, rowGroup, isPlay, nAttempts, meanStd, episodeAdvantages);
  } else if (o.episodeBaseline === 'trajectory') {
    unitBaseline(
      scores,
      rowSlot,
      nSlots,
      (s) => slotGroup[s] as number,
      rowGroup,
      nGroups,
      meanStd,
      episodeAdvantages,
    );
  } else {
    rowBaseline(scores, rowGroup, nGroups, meanStd, episodeAdvantages);
  }

  // Step part (GiGPO only): anchor groups inside each group.
  if (o.estimator === 'gigpo') {
    const rowStep = new Int32Array(n);
    const nSteps = assignStepGroups(rows, rowGroup, nGroups, maxAttempt, o.anchorScope === 'local', rowStep);
    const stepSum = new Float64Array(nSteps);
    const stepCount = new Int32Array(nSteps);
    for (let i = 0; i < n; i++) {
      const k = rowStep[i] as number;
      stepSum[k] = (stepSum[k] as number) + (returns[i] as number);
      stepCount[k] = (stepCount[k] as number) + 1;
    }
    for (let k = 0; k < nSteps; k++) stepSum[k] = (stepSum[k] as number) / (stepCount[k] as number);
    const stepDiv = meanStd ? divisors(returns, rowStep, stepSum, stepCount, nSteps) : null;
    const w = o.stepWeight;
    for (let i = 0; i < n; i++) {
      const k = rowStep[i] as number;
      let a = 0;
      if ((stepCount[k] as number) > 1) {
        a = (returns[i] as number) - (stepSum[k] as number);
        if (stepDiv !== null) a /= stepDiv[k] as number;
      }
      stepAdvantages[i] = a;
      advantages[i] = (episodeAdvantages[i] as number) + w * a;
    }
  } else {
    advantages.set(episodeAdvantages);
  }
  return out;
}

/**
 * GiGPO/GRPO advantages of every row (the JSON-in, JSON-out entry point). Output rows are in input
 * order. See `architecture/gigpo.md` for the estimator.
 */
export function computeAdvantages(
  rows: readonly AdvantageRowInput[],
  options: AdvantageOptions = {},
): AdvantageRowOutput[] {
  const c = computeAdvantageColumns(rows, options);
  const n = rows.length;
  const out = new Array<AdvantageRowOutput>(n);
  for (let i = 0; i < n; i++) {
    out[i] = {
      return: c.returns[i] as number,
      score: c.scores[i] as number,
      episodeAdvantage: c.episodeAdvantages[i] as number,
      stepAdvantage: c.stepAdvantages[i] as number,
      advantage: c.advantages[i] as number,
    };
  }
  return out;
}

/** Unbiased std + ε per bucket (1 for a bucket of one). `means` holds bucket means. */
function divisors(
  x: Float64Array,
  bucketOf: Int32Array,
  means: Float64Array,
  counts: Int32Array,
  nBuckets: number,
): Float64Array {
  const sq = new Float64Array(nBuckets);
  for (let i = 0; i < x.length; i++) {
    const b = bucketOf[i] as number;
    const d = (x[i] as number) - (means[b] as number);
    sq[b] = (sq[b] as number) + d * d;
  }
  for (let b = 0; b < nBuckets; b++) {
    const c = counts[b] as number;
    sq[b] = c > 1 ? Math.sqrt((sq[b] as number) / (c - 1)) + STD_EPSILON : 1;
  }
  return sq;
}

/** Row-weighted baseline: mean (and std) over all rows of the group; a group of one uses mean 0, std 1. */
function rowBaseline(
  scores: Float64Array,
  rowGroup: Int32Array,
  nGroups: number,
  meanStd: boolean,
  out: Float64Array,
): void {
  const mean = new Float64Array(nGroups);
  const count = new Int32Array(nGroups);
  const n = scores.length;
  for (let i = 0; i < n; i++) {
    const g = rowGroup[i] as number;
    mean[g] = (mean[g] as number) + (scores[i] as number);
    count[g] = (count[g] as number) + 1;
  }
  for (let g = 0; g < nGroups; g++) {
    const c = count[g] as number;
    mean[g] = c > 1 ? (mean[g] as number) / c : 0;
  }
  const div = meanStd ? divisors(scores, rowGroup, mean, count, nGroups) : null;
  for (let i = 0; i < n; i++) {
    const g = rowGroup[i] as number;
    const a = (scores[i] as number) - (mean[g] as number);
    out[i] = div === null ? a : a / (div[g] as number);
  }
}

/**
 * Unit-weighted baseline: every unit (a slot, or an attempt under GRPO) contributes the mean score of
 * its rows once; the group mean and std are taken over units. A group with one unit uses mean 0, std 1.
 */
function unitBaseline(
  scores: Float64Array,
  rowUnit: Int32Array,
  nUnits: number,
  groupOfUnit: (unit: number) => number,
  rowGroup: Int32Array,
  nGroups: number,
  meanStd: boolean,
  out: Float64Array,
): void {
  const n = scores.length;
  const unitValue = new Float64Array(nUnits);
  const unitCount = new Int32Array(nUnits);
  for (let i = 0; i < n; i++) {
    const u = rowUnit[i] as number;
    unitValue[u] = (unitValue[u] as number) + (scores[i] as number);
    unitCount[u] = (unitCount[u] as number) + 1;
  }
  const unitGroup = new Int32Array(nUnits);
  const mean = new Float64Array(nGroups);
  const count = new Int32Array(nGroups);
  for (let u = 0; u < nUnits; u++) {
    const c = unitCount[u] as number;
    if (c === 0) {
      unitGroup[u] = -1;
      continue;
    }
    const g = groupOfUnit(u);
    unitGroup[u] = g;
    unitValue[u] = (unitValue[u] as number) / c;
    mean[g] = (mean[g] as number) + (unitValue[u] as number);
    count[g] = (count[g] as number) + 1;
  }
  for (let g = 0; g < nGroups; g++) {
    const c = count[g] as number;
    mean[g] = c > 1 ? (mean[g] as number) / c : 0;
  }
  let div: Float64Array | null = null;
  if (meanStd) {
    div = new Float64Array(nGroups);
    for (let u = 0; u < nUnits; u++) {
      const g = unitGroup[u] as number;
      if (g < 0) continue;
      const d = (unitValue[u] as number) - (mean[g] as number);
      div[g] = (div[g] as number) + d * d;
    }
    for (let g = 0; g < nGroups; g++) {
      const c = count[g] as number;
      div[g] = c > 1 ? Math.sqrt((div[g] as number) / (c - 1)) + STD_EPSILON : 1;
    }
  }
  for (let i = 0; i < n; i++) {
    const g = rowGroup[i] as number;
    const a = (scores[i] as number) - (mean[g] as number);
    out[i] = div === null ? a : a / (div[g] as number);
  }
}

/**
 * Per-attempt baseline: a play row is compared with the attempts of the same index in its group (each
 * attempt one unit, its mean play-row score), a reflect row with the reflect rows written before the same
 * attempt index in its group (row-weighted). Attempt k's rows are thus never judged against attempt j's
 * meta-rewards, whose scale differs under the differential meta-reward.
 */
function attemptBaseline(
  scores: Float64Array,
  rows: readonly AdvantageRowInput[],
  rowAtt: Int32Array,
  rowGroup: Int32Array,
  isPlay: Uint8Array,
  nAttempts: number,
  meanStd: boolean,
  out: Float64Array,
): void {
  const n = scores.length;
  const bucketIndex = new Map<string, number>();
  const rowBucket = new Int32Array(n);
  const rowUnit = new Int32Array(n);
  const unitBucket: number[] = new Array(nAttempts).fill(-1);
  for (let i = 0; i < n; i++) {
    const play = isPlay[i] === 1;
    const key = `${rowGroup[i]}\u0000${rows[i]!.attempt}\u0000${play ? 'p' : 'r'}`;
    let b = bucketIndex.get(key);
    if (b === undefined) {
      b = bucketIndex.size;
      bucketIndex.set(key, b);
    }
    rowBucket[i] = b;
    if (play) {
      rowUnit[i] = rowAtt[i]!;
      unitBucket[rowAtt[i]!] = b;
    } else {
      rowUnit[i] = unitBucket.length;
      unitBucket.push(b);
    }
  }
  unitBaseline(
    scores,
    rowUnit,
    unitBucket.length,
    (u) => unitBucket[u]!,
    rowBucket,
    bucketIndex.size,
    meanStd,
    out,
  );
}

/**
 * Step-group index of every row: rows of one group with equal anchors (and, under `local` scope, equal
 * attempts). Returns the number of step groups.
 */
function assignStepGroups(
  rows: readonly AdvantageRowInput[],
  rowGroup: Int32Array,
  nGroups: number,
  maxAttempt: number,
  local: boolean,
  rowStep: Int32Array,
): number {
  const n = rows.length;
  const anchorIndex = new Map<string, number>();
  const attemptStride = local ? maxAttempt + 1 : 1;
  // Numeric keys (anchor, group, attempt) while they stay exact; string keys past 2^53.
  if (n * nGroups * attemptStride < Number.MAX_SAFE_INTEGER) {
    const stepIndex = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const row = rows[i] as AdvantageRowInput;
      let aid = anchorIndex.get(row.anchor);
      if (aid === undefined) {
        aid = anchorIndex.size;
        anchorIndex.set(row.anchor, aid);
      }
      let key = aid * nGroups + (rowGroup[i] as number);
      if (local) key = key * attemptStride + row.attempt;
      let k = stepIndex.get(key);
      if (k === undefined) {
        k = stepIndex.size;
        stepIndex.set(key, k);
      }
      rowStep[i] = k;
    }
    return stepIndex.size;
  }
  const stepIndex = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const row = rows[i] as AdvantageRowInput;
    const key = `${rowGroup[i]}\u0000${local ? row.attempt : 0}\u0000${row.anchor}`;
    let k = stepIndex.get(key);
    if (k === undefined) {
      k = stepIndex.size;
      stepIndex.set(key, k);
    }
    rowStep[i] = k;
  }
  return stepIndex.size;
}
