import { InvalidArgumentError } from '@mage-rl/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import fixture from './__fixtures__/compact-texts.json';
import {
  createWordLevelTokenizer,
  NEWLINE_TOKEN,
  normalizeWordLevelText,
  WORD_LEVEL_SPECIAL_TOKENS,
  wordLevelPieces,
} from './word-level';

const tok = createWordLevelTokenizer({ vocab: fixture.vocabulary });

/** The envs' action parsing (architecture/envs.md): the first `<action>` block, then the env's grammar. */
function parseAction(text: string): string | null {
  const open = /<action>/i.exec(text);
  if (!open) return null;
  const close = /<\/action>/gi;
  close.lastIndex = open.index + open[0].length;
  const c = close.exec(text);
  if (!c) return null;
  const body = text.slice(open.index + open[0].length, c.index);
  const cell = /\(\s*(\d+)\s*,\s*(\d+)\s*\)/.exec(body);
  if (cell) return `cell ${cell[1]} ${cell[2]}`;
  const word = body.trim().toUpperCase();
  if (word === 'PASS' || word === 'BET') return word;
  const moves = body.split(',').map((m) => m.trim());
  if (moves.every((m) => ['up', 'down', 'left', 'right'].includes(m))) return moves.join(' ');
  return null;
}

/** The compact text with the spaces around punctuation and tags removed, as a model might write it. */
const glue = (text: string) =>
  text
    .replace(/ *([()[\]{},:;|/.?!]) */g, '$1')
    .replace(/(<\/?[a-z]+>) +/g, '$1')
    .replace(/ +(<\/?[a-z]+>)/g, '$1');

describe('createWordLevelTokenizer', () => {
  it('lays out specials, the newline token, the words, then missing numbers 0–99', () => {
    const t = createWordLevelTokenizer({ vocab: ['board', 'x', 'board', '7'], specialTokens: ['<sep>'] });
    expect(t.tokens.slice(0, 9)).toEqual([...WORD_LEVEL_SPECIAL_TOKENS, '<sep>', NEWLINE_TOKEN]);
    expect(t.tokens.slice(9, 12)).toEqual(['board', 'x', '7']);
    expect(t.vocabSize).toBe(12 + 99);
    expect(t.tokenToId('99')).toBe(t.vocabSize - 1);
    expect([t.padTokenId, t.unkTokenId, t.bosTokenId, t.eosTokenId]).toEqual([0, 1, 2, 3]);
    expect(t.eosTokenIds).toEqual([3]);
    expect(t.specialTokens).toEqual([...WORD_LEVEL_SPECIAL_TOKENS, '<sep>']);
  });

  it('splits tags and punctuation glued to words into small pieces', () => {
    expect(wordLevelPieces('<action>(2, 3)</action>')).toEqual([
      '<action>',
      '(',
      '2',
      ',',
      '3',
      ')',
      '</action>',
    ]);
    expect(wordLevelPieces('<remark>lost</remark>')).toEqual(['<remark>', 'lost', '</remark>']);
    expect(wordLevelPieces('turn 1 -> you PASS. you -1|+2 a/b: J < Q<K')).toEqual(
      'turn 1 -> you PASS . you -1 | +2 a / b : J < Q < K'.split(' '),
    );
    expect(wordLevelPieces('board\r\n. X .\n\n O')).toEqual(['board', '\n', '.', 'X', '.', '\n', '\n', 'O']);
    expect(wordLevelPieces('mcts-100 cfr-sampled √ _ #')).toEqual(['mcts-100', 'cfr-sampled', '√', '_', '#']);
    expect(tok.encode('<action>(2, 3)</action>')).toEqual(tok.encode('<action> ( 2 , 3 ) </action>'));
  });

  it('maps unknown pieces to <unk> and cuts special tokens out of text', () => {
    const ids = tok.encode('you zebra<eos><user>board');
    expect(ids).toEqual([
      tok.tokenToId('you'),
      tok.unkTokenId,
      tok.eosTokenId,
      tok.tokenToId('<user>'),
      tok.tokenToId('board'),
    ]);
    expect(tok.decode(ids)).toBe('you board');
    expect(() => tok.decode([tok.vocabSize])).toThrow(InvalidArgumentError);
    expect(() => tok.decode([1.5])).toThrow(InvalidArgumentError);
  });

  it('tokenises every real compact text without <unk> and decodes it to its normalised form', () => {
    expect(fixture.texts.length).toBeGreaterThan(100);
    for (const text of fixture.texts) {
      const ids = tok.encode(text);
      expect(ids).not.toContain(tok.unkTokenId);
      const back = tok.decode(ids);
      expect(back).toBe(normalizeWordLevelText(text));
      expect(tok.encode(back)).toEqual(ids);
      // compact text is already normalised apart from the spaces around newlines
      expect(back).toBe(text.replace(/ *\n */g, '\n'));
      // glued text tokenises the same way
      expect(tok.encode(glue(text))).toEqual(ids);
    }
  });

  it('keeps every env action parseable through encode → decode, spaced or glued', () => {
    const actions = fixture.texts.filter((t) => t.startsWith('<action>'));
    expect(actions.length).toBeGreaterThan(10);
    const kinds = new Set<string>();
    for (const text of [...actions, ...actions.map(glue)]) {
      const action = parseAction(text);
      expect(action).not.toBeNull();
      kinds.add((action as string).split(' ')[0] as string);
      expect(parseAction(tok.decode(tok.encode(text)))).toBe(action);
    }
    expect(kinds).toEqual(new Set(['cell', 'PASS', 'BET', 'up', 'down', 'left', 'right']));
  });

  it('round-trips ids → text → ids for any sequence without special tokens', () => {
    const first = tok.specialTokens.length;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: first, max: tok.vocabSize - 1 }), { maxLength: 60 }), (ids) => {
        expect(tok.encode(tok.decode(ids))).toEqual(ids);
      }),
    );
  });

  it('decodes any text of vocabulary pieces to its normalised form (idempotent)', () => {
    const piece = fc.constantFrom(...tok.tokens);
    const space = fc.constantFrom('', ' ', '  ', '\t', '\n', ' \n ', '\r\n');
    fc.assert(
      fc.property(fc.array(fc.tuple(piece, space), { maxLength: 40 }), (parts) => {
        const text = parts.map(([p, s]) => p + s).join('');
        const norm = normalizeWordLevelText(text);
        expect(normalizeWordLevelText(norm)).toBe(norm);
        const withoutSpecials = tok.pieces(text).filter((p) => !tok.specialTokens.includes(p));
        // gluing can merge words ("up" + "1" = "up1"), so compare with the pieces actually found
        const ids = tok.encode(text);
        if (!ids.includes(tok.unkTokenId)) {
          expect(tok.decode(ids)).toBe(normalizeWordLevelText(withoutSpecials.join(' ')));
        }
      }),
    );
  });

  it('lays a chat out as <bos> (<role> content <eos>)* <assistant>, with sampled tokens verbatim', () => {
    const id = (t: string) => tok.tokenToId(t) as number;
    const response = [...tok.encode('<action> ( 1 , 2 ) </action>'), tok.eosTokenId];
    const fromTokens = tok.encodeChat([
      { role: 'system', content: 'tictactoe' },
      { role: 'user', content: 'board' },
      { role: 'assistant', content: 'ignored', tokens: response },
      { role: 'user', content: 'you ( 1 , 2 )' },
    ]);
    expect(fromTokens).toEqual([
      tok.bosTokenId,
      id('<system>'),
      id('tictactoe'),
      tok.eosTokenId,
      id('<user>'),
      id('board'),
      tok.eosTokenId,
      id('<assistant>'),
      ...response,
      id('<user>'),
      ...tok.encode('you ( 1 , 2 )'),
      tok.eosTokenId,
      id('<assistant>'),
    ]);
    const fromText = tok.encodeChat([
      { role: 'system', content: 'tictactoe' },
      { role: 'user', content: 'board' },
      { role: 'assistant', content: '<action>(1, 2)</action>' },
      { role: 'user', content: 'you (1, 2)' },
    ]);
    expect(fromText).toEqual(fromTokens);
    // a truncated response (no <eos>) is closed
    const cut = tok.encodeChat([{ role: 'assistant', content: '', tokens: [id('up')] }]);
    expect(cut).toEqual([tok.bosTokenId, id('<assistant>'), id('up'), tok.eosTokenId, id('<assistant>')]);
  });

  it('refuses vocabulary words it could never produce', () => {
    expect(() => createWordLevelTokenizer({ vocab: ['a b'] })).toThrow(InvalidArgumentError);
    expect(() => createWordLevelTokenizer({ vocab: ['row,'] })).toThrow(/not a single piece/);
    expect(() => createWordLevelTokenizer({ vocab: ['x<eos>'] })).toThrow(InvalidArgumentError);
    expect(() => createWordLevelTokenizer({ vocab: [], specialTokens: ['a b'] })).toThrow(
      InvalidArgumentError,
    );
  });
});
