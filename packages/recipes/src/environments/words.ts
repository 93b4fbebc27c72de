/** Small helpers the env definitions share: word lists of compact texts and population ids. */

import type { PopulationEntry } from '@mage-rl/core';

/** `words` plus every whitespace-separated word of `texts`, unique, in first-seen order. */
export function textWords(words: readonly string[], texts: readonly string[] = []): string[] {
  const out = new Set(words);
  for (const text of texts) for (const w of text.split(/\s+/)) if (w !== '') out.add(w);
  return [...out];
}

/** The opponent ids of population `name` (none when it does not exist). */
export function populationIds(
  populations: Readonly<Record<string, readonly PopulationEntry[]>>,
  name: string,
): string[] {
  return (populations[name] ?? []).map((e) => e.id);
}
