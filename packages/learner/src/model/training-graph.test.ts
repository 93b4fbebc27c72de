import { createRng } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { checkGradients, randomFloat64 } from '../graph/gradcheck';
import { serializeGraph } from '../graph/serialize';
import { createOrtSession, type TensorValue } from '../runtime/session';
import type { Architecture } from './config';
import { paramFeeds, tinyConfig, tokenIds } from './model.test-helper';
import { initParams, paramSpecs } from './params';
import { addModelLoss, buildTrainingGraph } from './training-graph';

const tiny = (architecture: Architecture, tie: boolean) => tinyConfig(architecture, 11, tie);

describe('architecture gradients (fp64, central differences)', () => {
  // Chunk rows 4 < B·T exercises the chunked head (logits recomputed per chunk); without chunkRows the
  // head is one chunk and the backward pass reuses the forward's log-probs.
  // Attention in 2 or 3 causal query blocks (uneven: 5 positions) or one.
  for (const [arch, tie, chunkRows, blocks] of [
    ['llama', true, 4, 1],
    ['llama', true, undefined, 2],
    ['llama', false, 4, 3],
    ['qwen2', true, 4, 2],
    ['qwen3', false, undefined, 1],
  ] as const) {
    it(`${arch} ${tie ? 'tied' : 'untied'} head, ${chunkRows === undefined ? 'one chunk' : 'chunked'}, ${blocks} attention block(s)`, async () => {
      const config = tiny(arch, tie);
      const B = 2;
      const T = 5;
      const result = await checkGradients({
        seed: 3,
        samples: 6,
        build: (g, rng) => {
          const m = addModelLoss(g, {
            config,
            batch: B,
            seqLen: T,
            attentionBlocks: blocks,
            ...(chunkRows === undefined ? {} : { chunkRows }),
          });
          const feeds = paramFeeds(config, m.params, (s, w) => {
            // Norm weights and biases away from their trivial initial values.
            if (s.kind === 'norm' || s.kind === 'bias') {
              const r = randomFloat64(rng.split(s.name), w.length, 0.3);
              for (let i = 0; i < w.length; i++) w[i] = (w[i] as number) + (r[i] as number);
            }
          });
          const ids = (label: string) => tokenIds(rng, label, B * T, config.vocabSize);
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

describe('training graph variants', () => {
  it('gives the same log-probs and gradients with causal attention blocks as without', async () => {
    const config = tiny('llama', true);
    const B = 2;
    const T = 7;
    const run = async (blocks: number) => {
      const built = buildTrainingGraph({
        config,
        batch: B,
        seqLen: T,
        attentionBlocks: blocks,
        float: 'float64',
      });
      const session = await createOrtSession(serializeGraph(built.graph), { optimization: 'basic' });
      const init = initParams(config, createRng(9), { std: 0.5 });
      const rng = createRng(4);
      const feeds: Record<string, TensorValue> = {};
      for (const s of paramSpecs(config))
        feeds[s.name] = { data: Float64Array.from(init.get(s.name) as Float32Array), dims: s.shape };
      const ids = () => BigInt64Array.from({ length: B * T }, () => BigInt(rng.int(config.vocabSize)));
      feeds.input_ids = { data: ids(), dims: [B, T] };
      feeds.targets = { data: ids(), dims: [B * T] };
      feeds.weights = { data: new Float64Array(B * T).fill(0.1), dims: [B * T] };
      feeds.entropy_weights = { data: new Float64Array(B * T).fill(0.01), dims: [B * T] };
      const out = await session.run(feeds);
      await session.dispose();
      return out;
    };
    const one = await run(1);
    for (const blocks of [2, 3, 7]) {
      const many = await run(blocks);
      for (const [name, value] of Object.entries(one)) {
        const a = value.data as Float64Array;
        const b = many[name]?.data as Float64Array;
        expect(b.length).toBe(a.length);
        a.forEach((x, i) => {
          expect(Math.abs(x - (b[i] as number))).toBeLessThan(1e-9 * (1 + Math.abs(x)));
        });
      }
    }
  });
});
