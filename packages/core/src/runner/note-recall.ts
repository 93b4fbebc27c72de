/** How much of a finished attempt a note states: the reflect rows' `noteRecall`. */

import type { MemoryAttemptV1 } from '@mage-rl/spec';

const spaced = (text: string): string => text.replace(/\s+/g, ' ').trim();

/**
 * The share of `attempt`'s facts — its distinct non-empty event lines and the env's reveal — that `note`
 * contains word for word, spacing aside. An attempt with no facts counts as fully recalled.
 */
export function noteRecall(note: string, attempt: Pick<MemoryAttemptV1, 'steps' | 'reveal'>): number {
  const facts = new Set(
    [...attempt.steps.map((s) => s.event), attempt.reveal ?? ''].map(spaced).filter((f) => f.length > 0),
  );
  if (facts.size === 0) return 1;
  const text = spaced(note);
  let stated = 0;
  for (const fact of facts) if (text.includes(fact)) stated++;
  return stated / facts.size;
}
