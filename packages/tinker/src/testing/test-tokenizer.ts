/**
 * A tokenizer for tests against the fake service: each of `words` is one token (ids 0 … n − 1), id n
 * ends a response, and any other text is one token per UTF-16 code unit (id n + 1 + code unit). The
 * fake's `vocabSize` of n + 1 then makes the model choose between the words and the end.
 */

import type { ChatMessage } from '@mage-rl/core';
import type { TinkerTokenizer } from '../policy/tinker-policy';

export interface TestTokenizer extends TinkerTokenizer {
  /** The ids the model predicts over: the words and the end-of-sequence id. */
  readonly vocabSize: number;
  encode(text: string): number[];
}

export function createTestTokenizer(words: readonly string[]): TestTokenizer {
  const eos = words.length;
  const offset = words.length + 1;
  const encode = (text: string) => Array.from({ length: text.length }, (_, i) => offset + text.charCodeAt(i));
  return {
    vocabSize: words.length + 1,
    eosTokenIds: [eos],
    encode,
    encodeChat: (messages: readonly ChatMessage[]) => [
      ...messages.flatMap((m) => [
        ...encode(`${m.role}: `),
        ...(m.tokens ?? encode(m.content)),
        ...encode('\n'),
      ]),
      ...encode('assistant: '),
    ],
    decode: (ids) =>
      ids
        .map((id) => (id < eos ? (words[id] ?? '') : id === eos ? '' : String.fromCharCode(id - offset)))
        .join(''),
  };
}
