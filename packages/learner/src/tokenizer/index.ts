export {
  type ByteTokenizerOptions,
  CHATML,
  type ChatFormat,
  createByteTokenizer,
  encodeChatWith,
  type TokenizerV1,
} from './tokenizer';
export {
  BOS_TOKEN,
  createWordLevelTokenizer,
  EOS_TOKEN,
  joinWordLevelPieces,
  NEWLINE_TOKEN,
  normalizeWordLevelText,
  PAD_TOKEN,
  ROLE_TOKENS,
  UNK_TOKEN,
  WORD_LEVEL_PIECE_PATTERN,
  WORD_LEVEL_SPECIAL_TOKENS,
  type WordLevelTokenizer,
  type WordLevelTokenizerOptions,
  wordLevelPieces,
} from './word-level';
export {
  parseWordLevelTokenizer,
  WORD_LEVEL_CHAT_TEMPLATE,
  wordLevelTokenizerFiles,
  writeWordLevelTokenizer,
} from './word-level-hf';
