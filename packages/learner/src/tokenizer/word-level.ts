/**
 * A word-level tokenizer for small closed vocabularies (mage-tiny's compact prompt grammar), with a
 * pre-tokeniser that also splits tags and punctuation glued to words, special tokens, a chat layout and
 * an exact Hugging Face `tokenizer.json` twin (see `word-level-hf.ts`).
 *
 * Text → pieces (the exact rule, `WORD_LEVEL_PIECE_PATTERN`):
 * 1. occurrences of special tokens (`<pad>`, `<bos>`, `<eos>`, `<unk>`, role markers, extras) are cut
 *    out first (longest match at each position, left to right), as Hugging Face does with added tokens;
 * 2. the text between them is split into pieces: a newline; a tag `<name>` / `</name>`; one of the
 *    punctuation characters `( ) [ ] { } , : ; | / . ? !`; a lone `<`; or a maximal run of other
 *    non-whitespace characters (a "word": `tictactoe`, `12`, `-1`, `->`, `mcts-100`). Other whitespace
 *    separates pieces and is dropped;
 * 3. each piece is looked up; pieces not in the vocabulary become `<unk>`.
 *
 * Ids → text: special tokens (including `<unk>`) are dropped; the remaining pieces are joined with one
 * space, except that no space is written next to a newline. So `decode(encode(x))` equals
 * `normalizeWordLevelText(x)` whenever every piece of `x` is in the vocabulary, and
 * `encode(decode(ids))` returns `ids` for every id sequence without special tokens.
 */

import { type ChatMessage, type ChatRole, InvalidArgumentError } from '@mage-rl/core';
import type { TokenizerV1 } from './tokenizer';

/** The pre-tokenisation pattern in Oniguruma syntax, as written to `tokenizer.json`. */
export const WORD_LEVEL_PIECE_PATTERN =
  '\\n|</?[A-Za-z][A-Za-z0-9_-]*>|[()\\[\\]{},:;|/.?!]|<|[^\\s()\\[\\]{},:;|/.?!<]+';

/**
 * The same pattern for JavaScript: transformers.js rewrites `\s` to `\p{White_Space}` (JavaScript's
 * `\s` also matches U+FEFF and misses U+0085), so we use the rewritten form to split identically.
 */
const PIECE_RE_SOURCE = WORD_LEVEL_PIECE_PATTERN.replaceAll('\\s', '\\p{White_Space}');

export const PAD_TOKEN = '<pad>';
export const UNK_TOKEN = '<unk>';
export const BOS_TOKEN = '<bos>';
export const EOS_TOKEN = '<eos>';
export const NEWLINE_TOKEN = '\n';
/** Role markers of the chat layout, one per `ChatRole`. */
export const ROLE_TOKENS: Readonly<Record<ChatRole, string>> = {
  system: '<system>',
  user: '<user>',
  assistant: '<assistant>',
};

/**
 * The built-in special tokens in id order (ids 0–6): pad, unk, bos, eos, then the role markers.
 * Extra special tokens follow, then the newline token, then the vocabulary words.
 */
export const WORD_LEVEL_SPECIAL_TOKENS: readonly string[] = [
  PAD_TOKEN,
  UNK_TOKEN,
  BOS_TOKEN,
  EOS_TOKEN,
  ROLE_TOKENS.system,
  ROLE_TOKENS.user,
  ROLE_TOKENS.assistant,
];

export interface WordLevelTokenizerOptions {
  /** Vocabulary words (order kept, duplicates ignored). Numbers 0–99 are added when missing. */
  readonly vocab: readonly string[];
  /** Extra special tokens (e.g. `<sep>`), placed after the built-in ones. */
  readonly specialTokens?: readonly string[];
  /** `model_max_length` of the Hugging Face files. Default 1024. */
  readonly modelMaxLength?: number;
}

export interface WordLevelTokenizer extends TokenizerV1 {
  /** Token of every id (`tokens[id]`). */
  readonly tokens: readonly string[];
  /** Every special token (built-in and extra), in id order; their ids are 0…n−1. */
  readonly specialTokens: readonly string[];
  readonly padTokenId: number;
  readonly unkTokenId: number;
  readonly bosTokenId: number;
  readonly eosTokenId: number;
  readonly modelMaxLength: number;
  tokenToId(token: string): number | undefined;
  /** The pieces of `text` (specials cut out first, then `WORD_LEVEL_PIECE_PATTERN`). */
  pieces(text: string): string[];
}

/** Splits text without special tokens into pieces. */
export function wordLevelPieces(text: string): string[] {
  return text.match(new RegExp(PIECE_RE_SOURCE, 'gu')) ?? [];
}

/** Joins pieces with one space, without spaces next to newlines (the decoding rule). */
export function joinWordLevelPieces(pieces: readonly string[]): string {
  let out = '';
  let prev: string | undefined;
  for (const p of pieces) {
    if (prev !== undefined && prev !== NEWLINE_TOKEN && p !== NEWLINE_TOKEN) out += ' ';
    out += p;
    prev = p;
  }
  return out;
}

/**
 * `decode(encode(text))` for a text without special tokens whose pieces are all in the vocabulary:
 * the pieces joined with one space, no space next to a newline.
 */
export function normalizeWordLevelText(text: string): string {
  return joinWordLevelPieces(wordLevelPieces(text));
}

/** Cuts `text` at occurrences of `specials` (longest match at each position, like HF added tokens). */
function splitSpecials(text: string, specials: readonly string[]): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  while (i < text.length) {
    let match: string | undefined;
    for (const s of specials) {
      if ((match === undefined || s.length > match.length) && text.startsWith(s, i)) match = s;
    }
    if (match === undefined) {
      i++;
      continue;
    }
    if (i > start) out.push(text.slice(start, i));
    out.push(match);
    i += match.length;
    start = i;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/** A word-level `TokenizerV1` (see the module comment for the exact splitting and decoding rules). */
export function createWordLevelTokenizer(options: WordLevelTokenizerOptions): WordLevelTokenizer {
  const specials = [...WORD_LEVEL_SPECIAL_TOKENS];
  for (const s of options.specialTokens ?? []) {
    if (s.length === 0 || /\s/u.test(s)) {
      throw new InvalidArgumentError(`Special token '${s}' must be non-empty without whitespace.`);
    }
    if (!specials.includes(s)) specials.push(s);
  }
  const tokens: string[] = [...specials, NEWLINE_TOKEN];
  const ids = new Map<string, number>(tokens.map((t, i) => [t, i]));
  const add = (word: string) => {
    if (ids.has(word)) return;
    const split = wordLevelPieces(word);
    if (split.length !== 1 || split[0] !== word || word.includes('\u0000')) {
      throw new InvalidArgumentError(
        `Vocabulary word ${JSON.stringify(word)} is not a single piece (pieces: ${JSON.stringify(split)}); ` +
          'the tokenizer could never produce it.',
      );
    }
    if (specials.some((s) => word.includes(s))) {
      throw new InvalidArgumentError(`Vocabulary word ${JSON.stringify(word)} contains a special token.`);
    }
    ids.set(word, tokens.length);
    tokens.push(word);
  };
  for (const w of options.vocab) add(w);
  for (let n = 0; n < 100; n++) add(String(n));

  const modelMaxLength = options.modelMaxLength ?? 1024;
  const specialIds = new Set(specials.map((_, i) => i));
  const id = (t: string): number => {
    const i = ids.get(t);
    if (i === undefined) throw new InvalidArgumentError(`The vocabulary lacks ${JSON.stringify(t)}.`);
    return i;
  };
  const unk = id(UNK_TOKEN);
  const bos = id(BOS_TOKEN);
  const eos = id(EOS_TOKEN);

  const pieces = (text: string): string[] =>
    splitSpecials(text, specials).flatMap((part) =>
      specialIds.has(ids.get(part) ?? -1) ? [part] : wordLevelPieces(part),
    );
  const encode = (text: string): number[] => pieces(text).map((p) => ids.get(p) ?? unk);

  return {
    vocabSize: tokens.length,
    eosTokenIds: [eos],
    tokens,
    specialTokens: specials,
    padTokenId: id(PAD_TOKEN),
    unkTokenId: unk,
    bosTokenId: bos,
    eosTokenId: eos,
    modelMaxLength,
    tokenToId: (t) => ids.get(t),
    pieces,
    encode,
    decode(idList) {
      const out: string[] = [];
      for (const i of idList) {
        const t = tokens[i];
        if (!Number.isInteger(i) || t === undefined) {
          throw new InvalidArgumentError(`Token id ${i} is outside the vocabulary (size ${tokens.length}).`);
        }
        if (!specialIds.has(i)) out.push(t);
      }
      return joinWordLevelPieces(out);
    },
    encodeChat(messages: readonly ChatMessage[]) {
      const out = [bos];
      for (const m of messages) {
        out.push(id(ROLE_TOKENS[m.role]));
        if (m.tokens !== undefined) {
          out.push(...m.tokens);
          // a sampled response that stopped at <eos> already carries its closing token
          if (m.tokens[m.tokens.length - 1] !== eos) out.push(eos);
        } else {
          out.push(...encode(m.content), eos);
        }
      }
      out.push(id(ROLE_TOKENS.assistant));
      return out;
    },
  };
}
