/**
 * `TokenizerV1` over a Hugging Face `tokenizer.json` / `tokenizer_config.json` through transformers.js,
 * offline: remote models are disabled and `dir` is an absolute or `./` path. Chat prompts are rendered
 * with the tokenizer's chat template; messages that carry `tokens` are spliced in verbatim.
 */

import { join } from 'node:path';
import type { PreTrainedTokenizer } from '@huggingface/transformers';
import { type ChatMessage, CheckpointError, pathExists } from '@mage-rl/core';
import type { TokenizerV1 } from '../tokenizer/tokenizer';

export interface HfTokenizerOptions {
  /** Extra end-of-response ids (e.g. `eos_token_id` of `config.json`). */
  readonly eosTokenIds?: readonly number[];
}

/** The files transformers.js needs to load a tokenizer offline. */
export const HF_TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json'] as const;

export async function loadHfTokenizer(dir: string, options: HfTokenizerOptions = {}): Promise<TokenizerV1> {
  for (const name of HF_TOKENIZER_FILES) {
    const path = join(dir, name);
    if (!(await pathExists(path))) {
      throw new CheckpointError(
        `'${path}' is missing: a Hugging Face model directory needs ${HF_TOKENIZER_FILES.join(' and ')} next to config.json. Copy them from the model's repository (they are published with the weights).`,
        { code: 'MODEL_FORMAT', context: { path } },
      );
    }
  }
  const { AutoTokenizer, env } = await import('@huggingface/transformers');
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  let tok: PreTrainedTokenizer;
  try {
    tok = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
  } catch (cause) {
    throw new CheckpointError(`Cannot load the tokenizer in ${dir}: ${String(cause)}`, {
      code: 'MODEL_FORMAT',
      cause,
    });
  }
  const encode = (text: string) =>
    text.length === 0 ? [] : Array.from(tok.encode(text, { add_special_tokens: false }));
  const eos = new Set<number>(options.eosTokenIds ?? []);
  if (typeof tok.eos_token_id === 'number') eos.add(tok.eos_token_id);
  let vocabSize = 0;
  for (const id of tok.get_vocab().values()) vocabSize = Math.max(vocabSize, id + 1);
  return {
    vocabSize,
    eosTokenIds: [...eos],
    encode,
    decode: (ids) => (ids.length === 0 ? '' : tok.decode([...ids], { skip_special_tokens: true })),
    encodeChat(messages: readonly ChatMessage[]) {
      const marks = messages.map((m, i) => (m.tokens === undefined ? null : `\u0000mage-tokens-${i}\u0000`));
      const text = tok.apply_chat_template(
        messages.map((m, i) => ({ role: m.role, content: marks[i] ?? m.content })),
        { tokenize: false, add_generation_prompt: true },
      );
      const out: number[] = [];
      let rest = text;
      messages.forEach((m, i) => {
        const mark = marks[i];
        if (mark === null || mark === undefined || m.tokens === undefined) return;
        const at = rest.indexOf(mark);
        if (at < 0)
          throw new CheckpointError('The chat template dropped a message; cannot splice its tokens.');
        out.push(...encode(rest.slice(0, at)), ...m.tokens);
        rest = rest.slice(at + mark.length);
      });
      out.push(...encode(rest));
      return out;
    },
  };
}
