/** The tabular learner's state: per prompt key a row of candidate logits with its Adam moments. */

import type { LearnerRowV1 } from '@mage-rl/spec';
import { InvalidArgumentError } from '@mage-rl/spec';
import type { Rng } from '../rng';

export interface TabularEntry {
  readonly logits: Float64Array;
  /** Adam's first and second moment estimates. */
  readonly m: Float64Array;
  readonly v: Float64Array;
}

export interface TabularSettings {
  readonly lr: number;
  readonly optimizer: 'adam' | 'sgd';
  readonly maxGradNorm: number;
  readonly maxConsecutiveSkips: number;
}

export interface TabularState {
  /** The responses the policy chooses between; token id = index. */
  readonly candidates: readonly string[];
  readonly settings: TabularSettings;
  /** Seeds mini-batch shuffling and requests without their own seed. */
  readonly rng: Rng;
  /** Keys with trained logits, in first-update order. */
  table: Map<string, TabularEntry>;
  /** Optimizer steps taken so far. */
  step: number;
  consecutiveSkips: number;
  /** Requests sampled without a seed so far (each gets its own stream). */
  unseeded: number;
}

/** Log-probabilities of the candidates for `key` (uniform for unseen keys), written into `out`. */
export function logprobsOf(
  state: TabularState,
  key: string,
  out = new Float64Array(state.candidates.length),
): Float64Array {
  return logSoftmax(state.table.get(key)?.logits ?? new Float64Array(out.length), out);
}

function logSoftmax(logits: Float64Array, out: Float64Array): Float64Array {
  let max = Number.NEGATIVE_INFINITY;
  for (const l of logits) max = Math.max(max, l);
  let sum = 0;
  for (const l of logits) sum += Math.exp(l - max);
  const lse = max + Math.log(sum);
  logits.forEach((l, i) => {
    out[i] = l - lse;
  });
  return out;
}

/** The entry of `key`, created with zero logits and moments on first use. */
export function entryFor(state: TabularState, key: string): TabularEntry {
  let entry = state.table.get(key);
  if (!entry) {
    const n = state.candidates.length;
    entry = { logits: new Float64Array(n), m: new Float64Array(n), v: new Float64Array(n) };
    state.table.set(key, entry);
  }
  return entry;
}

/** Throws unless every response token of every row is a candidate index. */
export function checkRows(state: TabularState, rows: readonly Pick<LearnerRowV1, 'responseTokens'>[]): void {
  const n = state.candidates.length;
  for (const [i, row] of rows.entries()) {
    for (const t of row.responseTokens) {
      if (!Number.isInteger(t) || t < 0 || t >= n) {
        throw new InvalidArgumentError(
          `Tabular learner: rows[${i}] has response token ${t}; token ids are candidate indices 0..${n - 1}.`,
        );
      }
    }
  }
}
