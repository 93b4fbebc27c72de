/** Tiny Hugging Face-layout files for tests: a byte-level BPE tokenizer (no merges) with ChatML specials. */

import { specialAddedToken } from '../tokenizer/word-level-hf';

/** GPT-2's byte → printable character map. */
export function bytesToUnicode(): string[] {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  // Printable bytes stand for themselves; the others, in byte order, for 256, 257, …
  let shifted = 0;
  return Array.from({ length: 256 }, (_, b) => String.fromCharCode(printable(b) ? b : 256 + shifted++));
}

export const TINY_SPECIALS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'] as const;

/** `tokenizer.json` + `tokenizer_config.json`: ids 0–255 are bytes, 256–258 the specials. */
export function tinyTokenizerFiles(): Record<string, string> {
  const chars = bytesToUnicode();
  const vocab: Record<string, number> = {};
  chars.forEach((ch, i) => {
    vocab[ch] = i;
  });
  TINY_SPECIALS.forEach((s, i) => {
    vocab[s] = 256 + i;
  });
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: TINY_SPECIALS.map((content, i) => specialAddedToken(256 + i, content)),
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: null,
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges: [],
    },
  };
  const config = {
    tokenizer_class: 'PreTrainedTokenizerFast',
    bos_token: null,
    eos_token: '<|im_end|>',
    pad_token: '<|endoftext|>',
    unk_token: null,
    model_max_length: 128,
    clean_up_tokenization_spaces: false,
    chat_template:
      "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}",
  };
  return {
    'tokenizer.json': JSON.stringify(tokenizer),
    'tokenizer_config.json': JSON.stringify(config, null, 2),
  };
}
