/** Option fields the turn-based envs share. */

import { z } from 'zod';

/** Agent turns per attempt (invalid turns count): at least `min`, at most 100. */
export function maxTurnsOption(min: number, defaultTurns: number) {
  return z.number().int().min(min).max(100).default(defaultTurns);
}

const TRUNCATIONS = ['zero', 'loss'] as const;

/**
 * What an attempt stopped by the turn limit scores: `zero`, or `loss` (what losing the game would score, so
 * that stalling with invalid moves never beats playing on). Either way its outcome is `truncated`.
 */
export type Truncation = (typeof TRUNCATIONS)[number];

/** The `truncation` option (see `Truncation`), `zero` by default. */
export function truncationOption() {
  return z.enum(TRUNCATIONS).default('zero');
}
