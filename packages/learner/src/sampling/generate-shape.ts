/** The static shapes of generation: power-of-two and ¾ buckets, a call's checked limits and its shape. */

import { InvalidArgumentError } from '@mage-rl/core';
import type { ModelConfig } from '../model/config';
import { zip } from '../util/arrays';
import type { GenerateTokensOptions } from './generator';

export const nextPow2 = (n: number, min = 1): number => {
  let p = min;
  while (p < n) p *= 2;
  return p;
};

/**
 * A static-shape bucket for `n` positions: the next power of two from `min`, or ¾ of it when that still
 * holds `n` and stays a multiple of `min` (16 → 16, 32, 48, 64, 96, 128, 192 …), at most `max`. Halves
 * the worst-case padding of plain powers of two for one more graph per octave.
 */
export const bucketLength = (n: number, min: number, max: number): number => {
  const p = nextPow2(n, min);
  const q = (3 * p) / 4;
  return Math.min(n <= q && q % min === 0 ? q : p, max);
};

/** The static shapes of a call: B rows (a power of two), T prompt positions, KV capacity S. */
export interface GenerateShape {
  readonly B: number;
  readonly T: number;
  readonly S: number;
}

/** Checks prompts and limits against the model; returns each row's token limit. */
export function checkRequest(c: ModelConfig, o: GenerateTokensOptions): number[] {
  if (o.seeds.length !== o.prompts.length)
    throw new InvalidArgumentError('generate(): one seed per prompt is needed.');
  const limits = o.prompts.map((_, i) =>
    typeof o.maxTokens === 'number' ? o.maxTokens : (o.maxTokens[i] ?? 0),
  );
  for (const p of o.prompts) {
    if (p.length === 0) throw new InvalidArgumentError('generate(): a prompt needs at least one token.');
    for (const t of p) {
      if (!Number.isInteger(t) || t < 0 || t >= c.vocabSize) {
        throw new InvalidArgumentError(
          `generate(): token id ${t} is outside the vocabulary of ${c.vocabSize}.`,
        );
      }
    }
  }
  return limits;
}

/** The buckets of a call: prompts padded to T, a KV buffer that holds every prompt and its limit. */
export function planShape(
  c: ModelConfig,
  prompts: readonly (readonly number[])[],
  limits: readonly number[],
): GenerateShape {
  const maxPrompt = Math.max(...prompts.map((p) => p.length));
  const need = Math.max(...zip(prompts, limits).map(([p, limit]) => p.length + limit));
  if (need > c.maxPositions) {
    throw new InvalidArgumentError(
      `generate(): prompt + maxTokens (${need}) exceeds maxPositions ${c.maxPositions}.`,
    );
  }
  return {
    B: nextPow2(prompts.length),
    T: bucketLength(maxPrompt, 16, c.maxPositions),
    S: bucketLength(need, 32, c.maxPositions),
  };
}

/**
 * Rows of a run over `n` of a buffer's `bufferRows` rows: the next power of two, at least 2 — with one
 * row onnxruntime's matrix products take another kernel (a matrix-vector product) whose sums are
 * ordered differently, so a row alone would not get the numbers it gets in a batch.
 */
export const runRows = (n: number, bufferRows: number): number => Math.min(bufferRows, nextPow2(n, 2));
