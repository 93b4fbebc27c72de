/**
 * The word list of the compact prompt grammar: the word-level tokenizer of mage-tiny is built from it.
 * Compact text separates every token by whitespace, so words are whitespace-split pieces and
 * punctuation tokens (`<action>`, `</remark>`, `(`, `,`, `->` …) are words of their own. Each env brings
 * its own words (`warmStart.words` of its definition); this module adds what every env shares. The base
 * vocabulary holds the words of a fixed set of first-party envs (`BASE_VOCABULARY_ENV_IDS`); every other
 * env's words join only the warm starts it is part of (architecture/recipes.md "Vocabulary").
 */

import type { EnvDefinitionV1 } from '@mage-rl/core';
import { COMPACT_VOCABULARY } from '@mage-rl/reflection';
import { FIRST_PARTY_ENV_DEFINITIONS } from '../environments/registry';

/** Sorted unique whitespace-separated words of `texts`. */
export function collectVocabulary(texts: Iterable<string>): string[] {
  const words = new Set<string>();
  for (const text of texts) addWords(words, text);
  return sortWords(words);
}

/** Adds the whitespace-separated words of `text` to `into`. */
export function addWords(into: Set<string>, text: string): void {
  for (const w of text.split(/\s+/)) if (w !== '') into.add(w);
}

/** Code-unit order (stable across locales). */
export function sortWords(words: Iterable<string>): string[] {
  return [...words].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Words every env's compact text may use: the action tags, punctuation, the invalid-turn event, sides. */
const SHARED_ENV_WORDS: readonly string[] = [
  'none',
  'end',
  'you',
  'opponent',
  'invalid',
  '(',
  ')',
  ',',
  '.',
  ':',
  '<action>',
  '</action>',
];

/**
 * The first-party envs whose words and opponent ids every warm start's tokenizer holds, whichever envs it
 * is made for. Fixed: a tokenizer (and so a fresh model's initialisation and every result built on it)
 * must not change when an env is added. A first-party env added later (Rock-Paper-Scissors) brings its
 * words the way an env package does: through `extra`, only to the warm starts it is part of.
 */
export const BASE_VOCABULARY_ENV_IDS: readonly string[] = [
  'tictactoe',
  'kuhn-poker',
  'sokoban',
  'treasure',
  'doors',
];

const BASE_VOCABULARY_ENVS: readonly EnvDefinitionV1[] = FIRST_PARTY_ENV_DEFINITIONS.filter((d) =>
  BASE_VOCABULARY_ENV_IDS.includes(d.id),
);

const envWords = (definitions: readonly EnvDefinitionV1[]): string[] =>
  definitions.flatMap((d) => d.warmStart?.words ?? []);

/**
 * Words of the base envs' compact text (`BASE_VOCABULARY_ENV_IDS`) — rules of every size, observations,
 * events, actions and outcome labels — plus the words every env shares. Sorted.
 */
export const ENV_COMPACT_WORDS: readonly string[] = sortWords(
  new Set([...SHARED_ENV_WORDS, ...envWords(BASE_VOCABULARY_ENVS)]),
);

/**
 * Opponent ids as memento / a-mem prompts print them (`opponent mcts-100`): those of the base envs
 * (`BASE_VOCABULARY_ENV_IDS`) and of `extra` env definitions, and `none`.
 */
export function knownOpponentIds(extra: readonly EnvDefinitionV1[] = []): string[] {
  const ids = [...BASE_VOCABULARY_ENVS, ...extra].flatMap((d) => d.opponents?.ids ?? []);
  return [...ids, 'none'];
}

/**
 * The fixed part of the compact vocabulary: the reflection scaffolding (`COMPACT_VOCABULARY`), the words
 * of the base envs (`BASE_VOCABULARY_ENV_IDS`) and of `extra` env definitions (a warm start passes the
 * definitions of its envs), the known opponent ids, `-` (note bullets) and every number 0–99. Sorted.
 */
export function compactBaseVocabulary(extra: readonly EnvDefinitionV1[] = []): string[] {
  const words = new Set<string>([
    ...COMPACT_VOCABULARY,
    ...ENV_COMPACT_WORDS,
    ...envWords(extra),
    ...knownOpponentIds(extra),
    '-',
  ]);
  for (let i = 0; i < 100; i++) words.add(String(i));
  return sortWords(words);
}

/** The base vocabulary (with `extra` env definitions) plus every word of `texts`. Sorted. */
export function compactVocabulary(
  texts: Iterable<string> = [],
  extra: readonly EnvDefinitionV1[] = [],
): string[] {
  const words = new Set(compactBaseVocabulary(extra));
  for (const text of texts) addWords(words, text);
  return sortWords(words);
}
