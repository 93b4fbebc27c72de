import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PreTrainedTokenizer } from '@huggingface/transformers';
import { CheckpointError } from '@mage-rl/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHfTokenizer } from '../hf/hf-tokenizer';
import fixture from './__fixtures__/compact-texts.json';
import { createWordLevelTokenizer } from './word-level';
import { parseWordLevelTokenizer, wordLevelTokenizerFiles, writeWordLevelTokenizer } from './word-level-hf';

const tok = createWordLevelTokenizer({ vocab: fixture.vocabulary, specialTokens: ['<sep>'] });
let dir = '';
let hf: PreTrainedTokenizer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mage-wordlevel-'));
  await writeWordLevelTokenizer(dir, tok);
  const { AutoTokenizer, env } = await import('@huggingface/transformers');
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  hf = await AutoTokenizer.from_pretrained(dir, { local_files_only: true });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const hfEncode = (text: string) => Array.from(hf.encode(text, { add_special_tokens: false }));
const hfDecode = (ids: number[]) => (ids.length === 0 ? '' : hf.decode(ids, { skip_special_tokens: true }));

describe('word-level tokenizer.json', () => {
  it('encodes and decodes every real compact text exactly like transformers.js', () => {
    for (const text of fixture.texts) {
      const ids = tok.encode(text);
      expect(hfEncode(text)).toEqual(ids);
      expect(hfDecode(ids)).toBe(tok.decode(ids));
    }
  });

  it('encodes arbitrary text (words, tags, punctuation, unicode whitespace, specials) identically', () => {
    const bits = fc.constantFrom(
      ...fixture.vocabulary,
      ...tok.specialTokens,
      '<action>',
      '</remark>',
      '<ACTION>',
      '<',
      '>',
      '<a-b>',
      '</',
      ' ',
      '\n',
      '\r\n',
      '\t',
      '\u00a0',
      '\u0085',
      '\u2028',
      '\ufeff',
      '\u3000',
      'zebra',
      'é',
      '😀',
      '<eo',
      's>',
    );
    const text = fc.oneof(
      fc.array(bits, { maxLength: 30 }).map((b) => b.join('')),
      fc.string({ unit: 'binary', maxLength: 40 }),
    );
    fc.assert(
      fc.property(text, (t) => {
        const ids = tok.encode(t);
        expect(hfEncode(t)).toEqual(ids);
        expect(hfDecode(ids)).toBe(tok.decode(ids));
      }),
      { numRuns: 600 },
    );
  });

  it('renders the chat template like encodeChat', () => {
    const messages = [
      { role: 'system' as const, content: 'tictactoe 3 x 3 .' },
      { role: 'user' as const, content: 'board\n. X .\nO . .' },
      { role: 'assistant' as const, content: '<action>(2, 3)</action>' },
      { role: 'user' as const, content: 'you ( 2 , 3 ) opponent ( 1 , 1 )' },
    ];
    const text = hf.apply_chat_template(messages, { tokenize: false, add_generation_prompt: true });
    expect(hfEncode(text)).toEqual(tok.encodeChat(messages));
  });

  it('loads through loadHfTokenizer with the same ids, eos and chat layout', async () => {
    const loaded = await loadHfTokenizer(dir);
    expect(loaded.vocabSize).toBe(tok.vocabSize);
    expect(loaded.eosTokenIds).toEqual([tok.eosTokenId]);
    const sample = fixture.texts.slice(0, 20);
    for (const t of sample) expect(loaded.encode(t)).toEqual(tok.encode(t));
    const messages = sample.map((content, i) => ({
      role: i % 2 ? ('assistant' as const) : ('user' as const),
      content,
    }));
    expect(loaded.encodeChat(messages)).toEqual(tok.encodeChat(messages));
  });

  it('reads its own files back and refuses other files', async () => {
    const text = await readFile(join(dir, 'tokenizer.json'), 'utf8');
    const back = parseWordLevelTokenizer(text, tok.modelMaxLength);
    expect(back.tokens).toEqual(tok.tokens);
    expect(back.specialTokens).toEqual(tok.specialTokens);
    expect(wordLevelTokenizerFiles(back)).toEqual(wordLevelTokenizerFiles(tok));
    expect(() => parseWordLevelTokenizer('{')).toThrow(CheckpointError);
    expect(() => parseWordLevelTokenizer('{"model":{"type":"BPE","vocab":{}}}')).toThrow(CheckpointError);
    const json = JSON.parse(text) as { model: { vocab: Record<string, number> } };
    json.model.vocab.board = 0;
    expect(() => parseWordLevelTokenizer(JSON.stringify(json))).toThrow(CheckpointError);
  });
});
