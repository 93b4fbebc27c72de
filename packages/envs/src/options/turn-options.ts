/** Option fields the turn-based envs share. */

import { z } from 'zod';

/** Agent turns per attempt (invalid turns count): at least `min`, at most 100. */
export function maxTurnsOption(min: number, defaultTurns: number) {
  return z.number().int().min(min).max(100).default(defaultTurns);
}

/**
 * What an attempt stopped by the turn limit scores: `zero`, or `loss` (what losing the game would score, so
 * that stalling with invalid moves never beats playing on). Either way its outcome is `truncated`.
 */
export function truncationOption() {
  return z.enum(['zero', 'loss']).default('zero');
}
