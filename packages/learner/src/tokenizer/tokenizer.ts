/**
 * The tokenizer interface of the learner's policy, a chat format that keeps earlier responses' token
 * ids verbatim, and a byte-level tokenizer for tests and experiments.
 */

import { type ChatMessage, type ChatRole, InvalidArgumentError } from '@mage-rl/core';

export interface TokenizerV1 {
  readonly vocabSize: number;
  /** Tokens that end a response. */
  readonly eosTokenIds: readonly number[];
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  /**
   * The prompt tokens of a conversation, ending with the opening of the assistant's turn. Messages with
   * `tokens` contribute those ids verbatim in place of their encoded content.
   */
  encodeChat(messages: readonly ChatMessage[]): number[];
}

/** How a conversation is laid out as text around each message's content. */
export interface ChatFormat {
  before(role: ChatRole): string;
  after(role: ChatRole): string;
  /** Opens the assistant turn the model is asked to write. */
  readonly generationPrompt: string;
}

/** ChatML: `<|im_start|>role\n…<|im_end|>\n`. */
export const CHATML: ChatFormat = {
  before: (role) => `<|im_start|>${role}\n`,
  after: () => '<|im_end|>\n',
  generationPrompt: '<|im_start|>assistant\n',
};

/** Encodes a chat with `format`, splicing `tokens` of earlier responses in verbatim. */
export function encodeChatWith(
  encode: (text: string) => number[],
  format: ChatFormat,
  messages: readonly ChatMessage[],
): number[] {
  const out: number[] = [];
  for (const m of messages) {
    out.push(...encode(format.before(m.role)));
    out.push(...(m.tokens !== undefined ? m.tokens : encode(m.content)));
    out.push(...encode(format.after(m.role)));
  }
  out.push(...encode(format.generationPrompt));
  return out;
}

export interface ByteTokenizerOptions {
  readonly format?: ChatFormat;
}

/**
 * UTF-8 bytes are ids 0–255; id 256 is end-of-sequence. Vocabulary 257. Invalid byte sequences decode
 * with replacement characters.
 */
export function createByteTokenizer(options: ByteTokenizerOptions = {}): TokenizerV1 {
  const format = options.format ?? CHATML;
  const EOS = 256;
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  const encode = (text: string) => Array.from(enc.encode(text));
  return {
    vocabSize: 257,
    eosTokenIds: [EOS],
    encode,
    decode(ids) {
      for (const id of ids) {
        if (!Number.isInteger(id) || id < 0 || id > EOS)
          throw new InvalidArgumentError(`Token id ${id} is not a byte id.`);
      }
      return dec.decode(Uint8Array.from(ids.filter((id) => id !== EOS)));
    },
    encodeChat: (messages) => encodeChatWith(encode, format, messages),
  };
}
