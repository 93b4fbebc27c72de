/**
 * The learner's view of its input rows: a token sequence with the spans whose tokens are scored. A plain
 * row is one span after its prompt; a packed row brings its own spans.
 */

import {
  InvalidArgumentError,
  isPackedRow,
  type LearnerInputRowV1,
  type LearnerRowV1,
  type LogprobRowV1,
  validatePackedRow,
} from '@mage-rl/core';
import type { ModelConfig } from '../model/config';

/** `tokens[start .. start + length)` of a sequence. */
export interface Span {
  readonly start: number;
  readonly length: number;
}

/** A token sequence with the spans whose tokens are scored. */
export interface Seq {
  readonly tokens: readonly number[];
  readonly spans: readonly Span[];
}

/** A span of a training unit, with its old/ref log-probs and advantage. */
export interface TrainSpan extends Span {
  readonly oldLogprobs: readonly number[];
  readonly refLogprobs?: readonly number[];
  readonly advantage: number;
}

/** A training unit: one sequence with the loss inputs of each span. */
export interface Unit extends Seq {
  readonly spans: readonly TrainSpan[];
  /** The plain row it came from (for the sampler's identity check). */
  readonly plain?: LearnerRowV1;
}

const plainTokens = (r: Pick<LearnerRowV1, 'promptTokens' | 'responseTokens'>): number[] => [
  ...r.promptTokens,
  ...r.responseTokens,
];

/** The sequence of a row to score. */
export const seqOf = (r: LogprobRowV1): Seq =>
  isPackedRow(r)
    ? r
    : { tokens: plainTokens(r), spans: [{ start: r.promptTokens.length, length: r.responseTokens.length }] };

/** The training unit of an update row. */
export const unitOf = (r: LearnerInputRowV1): Unit =>
  isPackedRow(r)
    ? r
    : {
        tokens: plainTokens(r),
        spans: [
          {
            start: r.promptTokens.length,
            length: r.responseTokens.length,
            oldLogprobs: r.oldLogprobs,
            ...(r.refLogprobs === undefined ? {} : { refLogprobs: r.refLogprobs }),
            advantage: r.advantage,
          },
        ],
        plain: r,
      };

/** Scored tokens of a sequence (all its spans). */
export const spanTokens = (s: Seq): number => s.spans.reduce((n, x) => n + x.length, 0);

/** The input length a sequence needs: up to its last scored token. */
export const inputLength = (s: Seq): number => {
  const last = s.spans.at(-1);
  return Math.max(1, last === undefined ? 1 : last.start + last.length - 1);
};

/** Checks rows against the model: a prompt token, at most `maxPositions` inputs, ids in the vocabulary. */
export function validateRows(rows: readonly LogprobRowV1[], config: ModelConfig): void {
  for (const r of rows) {
    if (isPackedRow(r)) {
      validatePackedRow(r);
    } else if (r.promptTokens.length === 0) {
      throw new InvalidArgumentError('A row needs at least one prompt token.');
    }
    const tokens = isPackedRow(r) ? r.tokens : plainTokens(r);
    const n = tokens.length - 1;
    if (n > config.maxPositions) {
      throw new InvalidArgumentError(`A row of ${n + 1} tokens exceeds maxPositions ${config.maxPositions}.`);
    }
    for (const t of tokens) {
      if (!Number.isInteger(t) || t < 0 || t >= config.vocabSize) {
        throw new InvalidArgumentError(`Token id ${t} is outside the vocabulary of ${config.vocabSize}.`);
      }
    }
  }
}
