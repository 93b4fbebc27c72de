import type { TokenLossInput } from '@mage-rl/spec';
import { at, InvalidArgumentError } from '@mage-rl/spec';

/**
 * How per-token losses become one scalar:
 * - `token-mean` (default, as the reference): mean over all tokens of the mini-batch.
 * - `seq-mean-token-mean`: mean over the row's tokens, then mean over rows (every row weighs the same).
 */
export type LossAggregation = 'token-mean' | 'seq-mean-token-mean';

/** Per-token factors s_j with loss = Σ_j s_j · ℓ_j. */
export function aggregationScales(
  n: number,
  rowOfToken: Int32Array,
  aggregation: LossAggregation,
  out: Float64Array = new Float64Array(n),
): Float64Array {
  if (n === 0) return out;
  if (aggregation === 'token-mean') {
    out.fill(1 / n, 0, n);
    return out;
  }
  if (aggregation !== 'seq-mean-token-mean') {
    throw new InvalidArgumentError(
      `aggregation must be 'token-mean' or 'seq-mean-token-mean', got ${JSON.stringify(aggregation)}.`,
    );
  }
  let maxRow = -1;
  for (let j = 0; j < n; j++) {
    const r = at(rowOfToken, j);
    if (r < 0) throw new InvalidArgumentError(`rowOfToken[${j}] is negative (${r}).`);
    if (r > maxRow) maxRow = r;
  }
  const counts = new Int32Array(maxRow + 1);
  for (let j = 0; j < n; j++) {
    const r = at(rowOfToken, j);
    counts[r] = at(counts, r) + 1;
  }
  let rowsWithTokens = 0;
  for (const c of counts) if (c > 0) rowsWithTokens++;
  for (let j = 0; j < n; j++) out[j] = 1 / (rowsWithTokens * at(counts, at(rowOfToken, j)));
  return out;
}

/** Throws unless every array of the input has the same length. Returns that length. */
export function checkTokenInput(input: TokenLossInput, needRef: boolean, name: string): number {
  const n = input.logprobs.length;
  const bad = (field: string, len: number) =>
    new InvalidArgumentError(`${name}: ${field} has ${len} entries but logprobs has ${n}.`, {
      context: { field, length: len, expected: n },
    });
  if (input.oldLogprobs.length !== n) throw bad('oldLogprobs', input.oldLogprobs.length);
  if (input.advantages.length !== n) throw bad('advantages', input.advantages.length);
  if (input.rowOfToken.length !== n) throw bad('rowOfToken', input.rowOfToken.length);
  if (needRef) {
    if (input.refLogprobs === undefined) {
      throw new InvalidArgumentError(`${name}: klCoef > 0 needs refLogprobs (reference-policy log-probs).`);
    }
    if (input.refLogprobs.length !== n) throw bad('refLogprobs', input.refLogprobs.length);
  }
  return n;
}
