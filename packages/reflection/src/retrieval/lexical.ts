/**
 * Deterministic lexical similarity for the retrieval memories: weighted bags of features compared by
 * cosine similarity. No embedding model; equal inputs give equal scores on every machine.
 */

/** A sparse feature vector. Keys are sorted when compared, so insertion order never matters. */
export type FeatureBag = ReadonlyMap<string, number>;

const STOPWORDS = new Set(
  'a an the and or of to in on at is it its was were be been this that with for as by from your you i my me we our not no do did does so then than there their they he she them his her if but are have has had will would can could should just also into over more most very'.split(
    ' ',
  ),
);

/** Lower-case word tokens (letters and digits). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Content words: no stop words, no single characters. */
export function contentWords(text: string): string[] {
  return words(text).filter((w) => w.length > 1 && !STOPWORDS.has(w));
}

/** The `n` most frequent content words (ties by first occurrence). */
export function keywords(text: string, n = 5): string[] {
  const counts = new Map<string, { count: number; first: number }>();
  contentWords(text).forEach((w, i) => {
    const c = counts.get(w);
    if (c) c.count++;
    else counts.set(w, { count: 1, first: i });
  });
  return [...counts.entries()]
    .sort((a, b) => b[1].count - a[1].count || a[1].first - b[1].first)
    .slice(0, n)
    .map(([w]) => w);
}

/** Adds `weight` to every token of `tokens` under `prefix`. */
export function addTokens(
  bag: Map<string, number>,
  prefix: string,
  tokens: readonly string[],
  weight = 1,
): void {
  for (const t of tokens) bag.set(`${prefix}${t}`, (bag.get(`${prefix}${t}`) ?? 0) + weight);
}

/**
 * Features of a state text: its words and, so equal boards match strongly, each whole line with its
 * position.
 */
export function stateFeatures(bag: Map<string, number>, text: string, weight = 1): void {
  addTokens(bag, 'w:', words(text), weight);
  text.split('\n').forEach((line, i) => {
    const l = line.trim();
    if (l) bag.set(`l${i}:${l}`, (bag.get(`l${i}:${l}`) ?? 0) + weight);
  });
}

/** Features of a task: env id, opponent id (weight 3), seat and the initial state. */
export function taskFeatures(
  envId: string,
  opponentId: string | null,
  seat: string,
  initialText: string,
): Map<string, number> {
  const bag = new Map<string, number>();
  addTokens(bag, 'env:', [envId]);
  addTokens(bag, 'opp:', [opponentId ?? 'none'], 3);
  addTokens(bag, 'seat:', [seat]);
  stateFeatures(bag, initialText);
  return bag;
}

export function cosine(a: FeatureBag, b: FeatureBag): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const [k, v] of small) {
    const w = large.get(k);
    if (w !== undefined) dot += v * w;
  }
  for (const v of a.values()) na += v * v;
  for (const v of b.values()) nb += v * v;
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}
