export {
  type ByteTokenizerOptions,
  CHATML,
  type ChatFormat,
  createByteTokenizer,
  encodeChatWith,
  type TokenizerV1,
} from './tokenizer';
