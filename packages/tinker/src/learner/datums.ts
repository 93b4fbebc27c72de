/**
 * Learner rows as Tinker datums. A row's sequence is prompt + response; the datum's input is the
 * sequence without its last token and its targets the sequence without its first, so input position
 * `i` predicts target `i`, and the response tokens are the targets from `prompt.length − 1` on. Every
 * per-token input (weights, sampling log-probs, advantages) is 0 on prompt positions.
 */

import { InvalidArgumentError, type LearnerRowV1 } from '@mage-rl/core';
import { type Datum, modelInputOf, type TensorData, tensor } from '../api/wire';

/** The tokens of a row to score or train. */
export type ScoredRow = Pick<LearnerRowV1, 'promptTokens' | 'responseTokens'>;

function check(row: ScoredRow, index: number): void {
  if (row.promptTokens.length === 0) {
    throw new InvalidArgumentError(`Row ${index} has no prompt token: a response needs a token before it.`);
  }
  if (row.responseTokens.length === 0) {
    throw new InvalidArgumentError(`Row ${index} has no response token to score.`);
  }
}

/** Values on the response positions of a row's targets, 0 elsewhere. */
function onResponse(row: ScoredRow, values: ArrayLike<number>): number[] {
  const n = row.promptTokens.length + row.responseTokens.length - 1;
  const out = new Array<number>(n).fill(0);
  const first = row.promptTokens.length - 1;
  for (let j = 0; j < row.responseTokens.length; j++) out[first + j] = values[j] ?? 0;
  return out;
}

/** A datum of `row` with per-token inputs (each given on the response tokens only). */
export function datumOf(
  row: ScoredRow,
  index: number,
  inputs: Readonly<Record<string, ArrayLike<number>>>,
): Datum {
  check(row, index);
  const sequence = [...row.promptTokens, ...row.responseTokens];
  const lossInputs: Record<string, TensorData> = { target_tokens: tensor(sequence.slice(1), 'int64') };
  for (const [name, values] of Object.entries(inputs))
    lossInputs[name] = tensor(onResponse(row, values), 'float32');
  return { model_input: modelInputOf(sequence.slice(0, -1)), loss_fn_inputs: lossInputs };
}

/** The response tokens' values of a per-target output (`logprobs`) of a row's datum. */
export function responseValues(row: ScoredRow, output: TensorData | undefined, what: string): Float32Array {
  const expected = row.promptTokens.length + row.responseTokens.length - 1;
  if (output === undefined || output.data.length !== expected) {
    throw new InvalidArgumentError(
      `The Tinker service returned ${output === undefined ? 'no' : output.data.length} ${what} for a datum of ${expected} targets.`,
    );
  }
  return Float32Array.from(output.data.slice(row.promptTokens.length - 1));
}
