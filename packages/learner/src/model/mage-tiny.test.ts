import { ConfigError } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { createWordLevelTokenizer } from '../tokenizer/word-level';
import { createMageTinyConfig, MAGE_TINY_CONFIG } from './mage-tiny';
import { countParams } from './params';

describe('mage-tiny', () => {
  it('is a ~1 M-parameter tied Llama with grouped-query attention', () => {
    const tok = createWordLevelTokenizer({ vocab: Array.from({ length: 400 }, (_, i) => `w${i}`) });
    const c = createMageTinyConfig(tok.vocabSize, { bosTokenId: tok.bosTokenId, eosTokenId: tok.eosTokenId });
    expect(c).toMatchObject({ ...MAGE_TINY_CONFIG, vocabSize: tok.vocabSize, eosTokenId: 3 });
    expect([c.architecture, c.tieWordEmbeddings, c.maxPositions]).toEqual(['llama', true, 1024]);
    expect([c.numHeads, c.numKvHeads, c.headDim]).toEqual([4, 2, 32]);
    const perLayer = 2 * 128 + 128 * 128 * 2 + 2 * 64 * 128 + 3 * 128 * 344;
    expect(countParams(c)).toBe(4 * perLayer + 128 + tok.vocabSize * 128);
    expect(countParams(c)).toBeGreaterThan(0.75e6);
    expect(countParams(createMageTinyConfig(600))).toBeLessThan(1.1e6);
    expect(MAGE_TINY_CONFIG.hiddenSize).toBe(128);
    expect(() => createMageTinyConfig(0)).toThrow(ConfigError);
  });

  it('scales in its own proportions', () => {
    expect(createMageTinyConfig(222, { size: {} })).toEqual(createMageTinyConfig(222));
    const c = createMageTinyConfig(222, { size: { hiddenSize: 256, numLayers: 6 } });
    expect([c.hiddenSize, c.numLayers, c.numHeads, c.numKvHeads, c.headDim, c.intermediateSize]).toEqual([
      256, 6, 8, 4, 32, 688,
    ]);
    expect(countParams(c)).toBeGreaterThan(4 * countParams(createMageTinyConfig(222)));
    const narrow = createMageTinyConfig(222, { size: { hiddenSize: 32 } });
    expect([narrow.numHeads, narrow.numKvHeads]).toEqual([1, 1]);
    expect(() => createMageTinyConfig(222, { size: { hiddenSize: 100 } })).toThrow(/multiple of 32/);
    expect(() => createMageTinyConfig(222, { size: { numLayers: 0 } })).toThrow(ConfigError);
  });
});
