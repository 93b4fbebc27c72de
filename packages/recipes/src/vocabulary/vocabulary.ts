/**
 * The word list of the compact prompt grammar: the word-level tokenizer of mage-tiny is built from it.
 * Compact text separates every token by whitespace, so words are whitespace-split pieces and
 * punctuation tokens (`<action>`, `</remark>`, `(`, `,`, `->` …) are words of their own. Each env brings
 * its own words (`warmStart.words` of its definition); this module adds what every env shares.
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

const envWords = (definitions: readonly EnvDefinitionV1[]): string[] =>
  definitions.flatMap((d) => d.warmStart?.words ?? []);

/**
 * Words of the first-party envs' compact text — rules of every size, observations, events, actions and
 * outcome labels — plus the words every env shares. Sorted.
 */
export const ENV_COMPACT_WORDS: readonly string[] = sortWords(
  new Set([...SHARED_ENV_WORDS, ...envWords(FIRST_PARTY_ENV_DEFINITIONS)]),
);

/**
 * Opponent ids as memento / a-mem prompts print them (`opponent mcts-100`): those of the first-party envs
 * and of `extra` env definitions, and `none`.
 */
export function knownOpponentIds(extra: readonly EnvDefinitionV1[] = []): string[] {
  const ids = [...FIRST_PARTY_ENV_DEFINITIONS, ...extra].flatMap((d) => d.opponents?.ids ?? []);
  return [...ids, 'none'];
}

/**
 * The fixed part of the compact vocabulary: the reflection scaffolding (`COMPACT_VOCABULARY`), the words
 * of the first-party envs and of `extra` env definitions, the known opponent ids, `-` (note bullets) and
 * every number 0–99. Sorted.
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
