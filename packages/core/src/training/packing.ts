/**
 * Packing of learner rows (transcript layout): the turns of a slot form one growing token
 * sequence — turn j's prompt is turn i's prompt + response + what came after — so they are scored by one
 * forward pass over the last sequence instead of one pass per turn over a repeated prefix.
 */

import type { LearnerInputRowV1, LearnerRowV1, LogprobRowV1, PackedRowV1, PackedSpanV1 } from '@mage-rl/spec';
import { InvalidArgumentError } from '@mage-rl/spec';

export type {
  LearnerInputRowV1,
  LogprobRowV1,
  PackedRowV1,
  PackedSpanV1,
} from '@mage-rl/spec';

/** True for a `PackedRowV1` (or the packed form of a `LogprobRowV1`). */
export function isPackedRow<R extends object>(row: R): row is Extract<R, { readonly spans: unknown }> {
  return 'spans' in row;
}

export interface PackRowsOptions {
  /** Longest packed sequence; a row that would make it longer starts a new one. Default: no limit. */
  readonly maxTokens?: number;
  /**
   * Group of each row (e.g. its slot); only rows of one group are merged, each with the group's
   * latest open sequence. Default: every row its own group key `''` (merge consecutive extensions).
   */
  readonly groupOf?: (row: LearnerRowV1, index: number) => string;
}

export interface PackedRows {
  readonly rows: PackedRowV1[];
  /** `sources[p][s]`: index in the input of the row that became span s of packed row p. */
  readonly sources: number[][];
}

interface Open {
  tokens: number[];
  spans: PackedSpanV1[];
  source: number[];
}

function extendsSequence(prompt: readonly number[], seq: readonly number[]): boolean {
  if (prompt.length < seq.length) return false;
  for (let i = 0; i < seq.length; i++) if (prompt[i] !== seq[i]) return false;
  return true;
}

const spanOf = (row: LearnerRowV1, start: number): PackedSpanV1 => ({
  start,
  length: row.responseTokens.length,
  oldLogprobs: row.oldLogprobs,
  ...(row.refLogprobs === undefined ? {} : { refLogprobs: row.refLogprobs }),
  advantage: row.advantage,
});

/**
 * Merges rows, in input order, into packed rows: a row joins the open sequence of its group when its
 * `promptTokens` start with that whole sequence (the previous row's prompt + response) and the result
 * stays within `maxTokens`; otherwise it starts a new sequence. Packed rows come out in the order of
 * their first row. Rows without response tokens become their own packed rows (without spans).
 */
export function packRows(rows: readonly LearnerRowV1[], options: PackRowsOptions = {}): PackedRows {
  const maxTokens = options.maxTokens ?? Number.POSITIVE_INFINITY;
  const all: Open[] = [];
  const open = new Map<string, Open>();
  rows.forEach((row, index) => {
    if (row.promptTokens.length === 0) {
      throw new InvalidArgumentError(`packRows: rows[${index}] has no prompt tokens.`);
    }
    if (row.oldLogprobs.length !== row.responseTokens.length) {
      throw new InvalidArgumentError(
        `packRows: rows[${index}] has ${row.oldLogprobs.length} old log-probs for ${row.responseTokens.length} response tokens.`,
      );
    }
    const group = options.groupOf?.(row, index) ?? '';
    const current = open.get(group);
    const length = row.promptTokens.length + row.responseTokens.length;
    if (
      current !== undefined &&
      row.responseTokens.length > 0 &&
      length <= maxTokens &&
      extendsSequence(row.promptTokens, current.tokens)
    ) {
      for (const token of row.promptTokens.slice(current.tokens.length)) current.tokens.push(token);
      current.spans.push(spanOf(row, current.tokens.length));
      current.tokens.push(...row.responseTokens);
      current.source.push(index);
      return;
    }
    const next: Open = {
      tokens: [...row.promptTokens, ...row.responseTokens],
      spans: row.responseTokens.length > 0 ? [spanOf(row, row.promptTokens.length)] : [],
      source: [index],
    };
    all.push(next);
    open.set(group, next);
  });
  return {
    rows: all.map((o) => ({ tokens: o.tokens, spans: o.spans })),
    sources: all.map((o) => o.source),
  };
}

/** The plain rows of a packed row's spans, in span order. */
export function unpackRow(row: PackedRowV1): LearnerRowV1[] {
  return row.spans.map((s) => ({
    promptTokens: row.tokens.slice(0, s.start),
    responseTokens: row.tokens.slice(s.start, s.start + s.length),
    oldLogprobs: s.oldLogprobs,
    ...(s.refLogprobs === undefined ? {} : { refLogprobs: s.refLogprobs }),
    advantage: s.advantage,
  }));
}

/** Plain rows of a mixed list: plain rows as they are, packed rows as their spans' rows. */
export function unpackRows(rows: readonly LearnerInputRowV1[]): LearnerRowV1[] {
  return rows.flatMap((r) => (isPackedRow(r) ? unpackRow(r) : [r]));
}

/** The prompt/response rows to score of a mixed log-prob request (packed rows split into spans). */
export function unpackLogprobRows(
  rows: readonly LogprobRowV1[],
): Pick<LearnerRowV1, 'promptTokens' | 'responseTokens'>[] {
  return rows.flatMap((r) =>
    isPackedRow(r)
      ? r.spans.map((s) => ({
          promptTokens: r.tokens.slice(0, s.start),
          responseTokens: r.tokens.slice(s.start, s.start + s.length),
        }))
      : [r],
  );
}

/** The log-probs of a packed row's spans as one array, in span order (how `LearnerV1.logprobs` returns them). */
export function joinSpanLogprobs(parts: readonly Float32Array[]): Float32Array {
  const joined = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    joined.set(p, o);
    o += p.length;
  }
  return joined;
}

/** `spans` with their reference log-probs, taken in span order from one array (`joinSpanLogprobs`' layout). */
export function spansWithRef<S extends { readonly length: number }>(
  spans: readonly S[],
  ref: Float32Array,
): (S & { readonly refLogprobs: number[] })[] {
  let o = 0;
  return spans.map((s) => {
    const refLogprobs = Array.from(ref.subarray(o, o + s.length));
    o += s.length;
    return { ...s, refLogprobs };
  });
}

/** Checks a packed row's spans: inside the tokens, start ≥ 1, increasing and non-overlapping. */
export function validatePackedRow(row: PackedRowV1 | Extract<LogprobRowV1, { tokens: unknown }>): void {
  let end = 1;
  for (const s of row.spans) {
    if (!Number.isInteger(s.start) || !Number.isInteger(s.length) || s.length < 0) {
      throw new InvalidArgumentError(
        `A packed span needs integer start and length ≥ 0, got ${s.start}/${s.length}.`,
      );
    }
    if (s.start < end || s.start + s.length > row.tokens.length) {
      throw new InvalidArgumentError(
        `A packed span [${s.start}, ${s.start + s.length}) overlaps the previous one, starts at 0, or ends after the ${row.tokens.length} tokens.`,
      );
    }
    if ('oldLogprobs' in s && (s as PackedSpanV1).oldLogprobs.length !== s.length) {
      throw new InvalidArgumentError(
        `A packed span of ${s.length} tokens has ${(s as PackedSpanV1).oldLogprobs.length} old log-probs.`,
      );
    }
    end = s.start + s.length;
  }
}
