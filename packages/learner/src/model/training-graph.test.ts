import { createRng } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { checkGradients, randomFloat64 } from '../graph/gradcheck';
import type { Tensor } from '../graph/tensor';
import { type Architecture, defineModelConfig } from './config';
import { initParams, paramSpecs } from './params';
import { addModelLoss } from './training-graph';

const tiny = (architecture: Architecture, tie: boolean) =>
  defineModelConfig({
    architecture,
    vocabSize: 11,
    hiddenSize: 8,
    numLayers: 2,
    numHeads: 4,
    numKvHeads: 2,
    headDim: 4,
    intermediateSize: 12,
    tieWordEmbeddings: tie,
  });

describe('architecture gradients (fp64, central differences)', () => {
  for (const [arch, tie] of [
    ['llama', true],
    ['llama', false],
    ['qwen2', true],
    ['qwen3', false],
  ] as const) {
    it(`${arch} ${tie ? 'tied' : 'untied'} head`, async () => {
      const config = tiny(arch, tie);
      const B = 2;
      const T = 5;
      const result = await checkGradients({
        seed: 3,
        samples: 6,
        build: (g, rng) => {
          // Chunk rows 4 < B·T exercises the chunked head.
          const m = addModelLoss(g, { config, batch: B, seqLen: T, chunkRows: 4 });
          const init = initParams(config, createRng(5), { std: 0.5 });
          const feeds: { tensor: Tensor; data: Float64Array | BigInt64Array }[] = paramSpecs(config).map(
            (s) => {
              const w = Float64Array.from(init.get(s.name) as Float32Array);
              // Norm weights and biases away from their trivial initial values.
              if (s.kind === 'norm' || s.kind === 'bias') {
                const r = randomFloat64(rng.split(s.name), w.length, 0.3);
                for (let i = 0; i < w.length; i++) w[i] = (w[i] as number) + (r[i] as number);
              }
              return { tensor: m.params[s.name] as Tensor, data: w };
            },
          );
          const ids = (label: string) =>
            BigInt64Array.from({ length: B * T }, (_, i) =>
              BigInt(rng.split(label).split(i).int(config.vocabSize)),
            );
          feeds.push({ tensor: m.tokens, data: ids('tokens') });
          feeds.push({ tensor: m.targets, data: ids('targets') });
          feeds.push({ tensor: m.weights, data: randomFloat64(rng.split('w'), B * T) });
          feeds.push({ tensor: m.entropyWeights, data: randomFloat64(rng.split('ew'), B * T, 0.5) });
          return { feeds, output: m.loss };
        },
      });
      expect(result.scale).toBeGreaterThan(1e-3);
      expect(result.maxError).toBeLessThan(1e-5);
      // Every parameter plus the two weight inputs.
      expect(Object.keys(result.errors).length).toBe(paramSpecs(config).length + 2);
    });
  }
});
