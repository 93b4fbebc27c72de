/** The word lists of compact texts that the env definitions build. */

/** `words` plus every whitespace-separated word of `texts`, unique, in first-seen order. */
export function textWords(words: readonly string[], texts: readonly string[] = []): string[] {
  const out = new Set(words);
  for (const text of texts) for (const w of text.split(/\s+/)) if (w !== '') out.add(w);
  return [...out];
}
