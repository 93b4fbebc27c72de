/**
 * Hugging Face files of a word-level tokenizer: `tokenizer.json` (WordLevel model, a `Split`
 * pre-tokeniser with `WORD_LEVEL_PIECE_PATTERN`, the specials as added tokens, a decoder that joins
 * pieces with spaces except around newlines) and `tokenizer_config.json` (special token names, the chat
 * template of `encodeChat`, no clean-up of spaces). transformers.js loads them offline and encodes
 * exactly like `createWordLevelTokenizer`; both formats read back with `parseWordLevelTokenizer`.
 */

import { join } from 'node:path';
import { CheckpointError, writeFileAtomic } from '@mage-rl/core';
import {
  BOS_TOKEN,
  createWordLevelTokenizer,
  EOS_TOKEN,
  NEWLINE_TOKEN,
  PAD_TOKEN,
  UNK_TOKEN,
  WORD_LEVEL_PIECE_PATTERN,
  WORD_LEVEL_SPECIAL_TOKENS,
  type WordLevelTokenizer,
} from './word-level';

/**
 * The Jinja chat template equivalent of `encodeChat` for text messages:
 * `<bos>` then `<role>content<eos>` per message, then `<assistant>`.
 */
export const WORD_LEVEL_CHAT_TEMPLATE =
  "{{ bos_token }}{% for message in messages %}{{ '<' + message['role'] + '>' + message['content'] + eos_token }}{% endfor %}{% if add_generation_prompt %}{{ '<assistant>' }}{% endif %}";

/** The WordPiece decoder's continuation prefix; no vocabulary word can start with it (NUL). */
const NO_PREFIX = '\u0000';

/** The `tokenizer.json` entry of special token `content` with id `id` (matched verbatim, never split). */
export const specialAddedToken = (id: number, content: string) => ({
  id,
  content,
  single_word: false,
  lstrip: false,
  rstrip: false,
  normalized: false,
  special: true,
});

/** `tokenizer.json` and `tokenizer_config.json` contents (for `exportHfModel({ tokenizerFiles })`). */
export function wordLevelTokenizerFiles(tokenizer: WordLevelTokenizer): Record<string, string> {
  const vocab: Record<string, number> = {};
  tokenizer.tokens.forEach((t, i) => {
    vocab[t] = i;
  });
  const json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: tokenizer.specialTokens.map((content, id) => specialAddedToken(id, content)),
    normalizer: null,
    pre_tokenizer: {
      type: 'Split',
      pattern: { Regex: WORD_LEVEL_PIECE_PATTERN },
      behavior: 'Removed',
      invert: true,
    },
    post_processor: null,
    decoder: {
      type: 'Sequence',
      decoders: [
        { type: 'WordPiece', prefix: NO_PREFIX, cleanup: false },
        { type: 'Fuse' },
        { type: 'Replace', pattern: { Regex: ' ?\\n ?' }, content: '\n' },
      ],
    },
    model: { type: 'WordLevel', vocab, unk_token: UNK_TOKEN },
  };
  const config = {
    tokenizer_class: 'PreTrainedTokenizerFast',
    bos_token: BOS_TOKEN,
    eos_token: EOS_TOKEN,
    unk_token: UNK_TOKEN,
    pad_token: PAD_TOKEN,
    additional_special_tokens: tokenizer.specialTokens.filter(
      (t) => ![BOS_TOKEN, EOS_TOKEN, UNK_TOKEN, PAD_TOKEN].includes(t),
    ),
    add_bos_token: false,
    add_eos_token: false,
    model_max_length: tokenizer.modelMaxLength,
    clean_up_tokenization_spaces: false,
    chat_template: WORD_LEVEL_CHAT_TEMPLATE,
  };
  return {
    'tokenizer.json': `${JSON.stringify(json, null, 2)}\n`,
    'tokenizer_config.json': `${JSON.stringify(config, null, 2)}\n`,
  };
}

/** Writes `tokenizer.json` and `tokenizer_config.json` into `dir` (each file atomically). */
export async function writeWordLevelTokenizer(dir: string, tokenizer: WordLevelTokenizer): Promise<void> {
  for (const [name, text] of Object.entries(wordLevelTokenizerFiles(tokenizer))) {
    await writeFileAtomic(join(dir, name), text);
  }
}

const bad = (why: string) =>
  new CheckpointError(`Not a mage word-level tokenizer.json: ${why}.`, { code: 'MODEL_FORMAT' });

/**
 * Rebuilds the tokenizer from the text of a `tokenizer.json` written by `wordLevelTokenizerFiles`
 * (ids must come out identical; anything else is refused with a `CheckpointError`).
 */
export function parseWordLevelTokenizer(tokenizerJson: string, modelMaxLength?: number): WordLevelTokenizer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(tokenizerJson);
  } catch {
    throw bad('invalid JSON');
  }
  const model = (parsed as { model?: { type?: unknown; vocab?: unknown } } | null)?.model;
  if (model?.type !== 'WordLevel' || typeof model.vocab !== 'object' || model.vocab === null)
    throw bad('no WordLevel model');
  const pre = (parsed as { pre_tokenizer?: { pattern?: { Regex?: unknown } } }).pre_tokenizer;
  if (pre?.pattern?.Regex !== WORD_LEVEL_PIECE_PATTERN) throw bad('different pre-tokenizer');
  const entries = Object.entries(model.vocab as Record<string, unknown>);
  const tokens: string[] = new Array(entries.length);
  for (const [t, id] of entries) {
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id >= entries.length)
      throw bad(`id of ${JSON.stringify(t)} out of range`);
    tokens[id] = t;
  }
  for (let i = 0; i < tokens.length; i++) if (tokens[i] === undefined) throw bad(`no token with id ${i}`);
  const added = (parsed as { added_tokens?: { content?: unknown; special?: unknown }[] }).added_tokens ?? [];
  const specials = added.filter((a) => a.special === true).map((a) => String(a.content));
  const builtIn = WORD_LEVEL_SPECIAL_TOKENS.length;
  if (specials.slice(0, builtIn).join('\u0000') !== WORD_LEVEL_SPECIAL_TOKENS.join('\u0000'))
    throw bad('unexpected special tokens');
  const nl = specials.length;
  if (tokens[nl] !== NEWLINE_TOKEN) throw bad('no newline token after the specials');
  let tok: WordLevelTokenizer;
  try {
    tok = createWordLevelTokenizer({
      vocab: tokens.slice(nl + 1),
      specialTokens: specials.slice(builtIn),
      ...(modelMaxLength === undefined ? {} : { modelMaxLength }),
    });
  } catch (cause) {
    throw bad(cause instanceof Error ? cause.message : String(cause));
  }
  if (tok.tokens.length !== tokens.length || tok.tokens.some((t, i) => t !== tokens[i]))
    throw bad('ids do not round-trip');
  return tok;
}
