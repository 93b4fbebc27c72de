/**
 * The word list of the compact prompt grammar (SPEC §9): the future word-level tokenizer of mage-tiny is
 * built from it. Compact text separates every token by whitespace, so words are whitespace-split pieces
 * and punctuation tokens (`<action>`, `</remark>`, `(`, `,`, `->` …) are words of their own.
 */

import { kuhnRules } from '@mage-rl/envs/kuhn-poker';
import { SOKOBAN_MOVES, SOKOBAN_SYMBOLS, sokobanRules } from '@mage-rl/envs/sokoban';
import { TICTACTOE_MAX_SIZE, TICTACTOE_MIN_SIZE, ticTacToeRules } from '@mage-rl/envs/tictactoe';
import { kuhnOpponentRegistry, ticTacToeOpponentRegistry } from '@mage-rl/opponents';
import { COMPACT_VOCABULARY } from '@mage-rl/reflection';

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

/** Outcome labels of the three envs (`AttemptOutcome.label`). */
export const OUTCOME_LABELS: readonly string[] = ['win', 'loss', 'draw', 'truncated', 'solved', 'deadlock'];

/**
 * Words the envs' compact observations and history lines use besides their rules text: headings, the
 * agent/opponent names, Kuhn cards, actions and chip results, Sokoban moves and result words.
 */
export const ENV_COMPACT_WORDS: readonly string[] = [
  'board',
  'room',
  'card',
  'history',
  'none',
  'end',
  'you',
  'opponent',
  'opp',
  'PASS',
  'BET',
  'J',
  'Q',
  'K',
  '?',
  'showdown',
  '+1',
  '-1',
  '+2',
  '-2',
  ...SOKOBAN_MOVES,
  ...Object.values(SOKOBAN_SYMBOLS),
  'solved',
  'stuck',
  'invalid',
  '(',
  ')',
  ',',
  '.',
  ':',
  '<action>',
  '</action>',
];

/** The compact rules text of every env and seat, for every board size / moves-per-turn value. */
export function compactRulesTexts(): string[] {
  const out: string[] = [];
  for (let size = TICTACTOE_MIN_SIZE; size <= TICTACTOE_MAX_SIZE; size++) {
    out.push(ticTacToeRules(size, 'compact', 8));
  }
  for (const agent of [0, 1]) out.push(kuhnRules('compact', 6, 5, agent));
  for (let moves = 1; moves <= 20; moves++) out.push(sokobanRules('compact', 7, moves));
  return out;
}

/** Opponent ids as memento / a-mem prompts print them (`opponent mcts-100`). */
export function knownOpponentIds(): string[] {
  return [...ticTacToeOpponentRegistry().ids, ...kuhnOpponentRegistry().ids, 'none'];
}

/**
 * The fixed part of the compact vocabulary: the reflection scaffolding (`COMPACT_VOCABULARY`), the envs'
 * compact words and rules, every outcome label, the known opponent ids, `-` (note bullets) and every
 * number 0–99. Sorted.
 */
export function compactBaseVocabulary(): string[] {
  const words = new Set<string>([
    ...COMPACT_VOCABULARY,
    ...ENV_COMPACT_WORDS,
    ...OUTCOME_LABELS,
    ...knownOpponentIds(),
    '-',
  ]);
  for (const text of compactRulesTexts()) addWords(words, text);
  for (let i = 0; i < 100; i++) words.add(String(i));
  return sortWords(words);
}

/** The base vocabulary plus every word of `texts` (corpus prompts and responses). Sorted. */
export function compactVocabulary(texts: Iterable<string> = []): string[] {
  const words = new Set(compactBaseVocabulary());
  for (const text of texts) addWords(words, text);
  return sortWords(words);
}
