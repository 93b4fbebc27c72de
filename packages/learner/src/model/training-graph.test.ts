import { createRng } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { randomFloat64 } from '../graph/gradcheck';
import { serializeGraph } from '../graph/serialize';
import { createOrtSession, type TensorValue } from '../runtime/session';
import type { Architecture } from './config';
import { expectExactModelGradients, tinyConfig } from './model.test-helper';
import { initParams, paramSpecs } from './params';
import { buildTrainingGraph } from './training-graph';

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
      await expectExactModelGradients({
        config: tiny(arch, tie),
        seed: 3,
        batch: 2,
        seqLen: 5,
        loss: { attentionBlocks: blocks, ...(chunkRows === undefined ? {} : { chunkRows }) },
        adjust: (s, w, rng) => {
          // Norm weights and biases away from their trivial initial values.
          if (s.kind === 'norm' || s.kind === 'bias') {
            const r = randomFloat64(rng.split(s.name), w.length, 0.3);
            for (let i = 0; i < w.length; i++) w[i] = (w[i] as number) + (r[i] as number);
          }
        },
      });
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
