import { describe, expect, it } from 'vitest';
import { defineModelConfig } from './config';
import { estimateSessionBytes } from './memory-estimate';

const config = defineModelConfig({
  vocabSize: 151_936,
  hiddenSize: 64,
  numLayers: 2,
  numHeads: 4,
  numKvHeads: 2,
  intermediateSize: 128,
  maxPositions: 256,
});

describe('estimateSessionBytes', () => {
  it('counts logits at the head rows only when the head runs at each row’s last token', () => {
    const shape = { kind: 'forward', rows: 16, tokens: 32, keys: 32 } as const;
    const every = estimateSessionBytes(config, shape);
    const last = estimateSessionBytes(config, { ...shape, logitsRows: 16 });
    // Logits, probabilities and their gradient (3 float32 rows of the vocabulary) per position left out.
    expect(every - last).toBe(4 * 3 * config.vocabSize * (16 * 32 - 16));
  });
});
