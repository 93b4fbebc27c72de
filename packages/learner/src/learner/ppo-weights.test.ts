import { createRng, type LearnerRowV1, type TokenLossFn } from '@mage-rl/core';
import { ppoTokenLoss } from '@mage-rl/gigpo';
import { describe, expect, it } from 'vitest';
import { createLocalRunner, type GraphRunner } from '../runtime/runner';
import { TINY_LEARNER } from '../testing/tiny-config.test-helper';
import { createByteTokenizer } from '../tokenizer/tokenizer';
import { createOnnxLearner, type OnnxLearnerOptions } from './onnx-learner';

const tokenizer = createByteTokenizer();

/** A local runner that records the key of every run. */
function recordingRunner(): { runner: GraphRunner; keys: string[] } {
  const keys: string[] = [];
  const local = createLocalRunner();
  return {
    runner: {
      ...local,
      run(key, feeds, options) {
        keys.push(key);
        return local.run(key, feeds, options);
      },
    },
    keys,
  };
}

/**
 * Rows whose old and reference log-probs are far enough from the current ones that every branch of the
 * PPO weights is taken: ratios inside and outside the clip range on both sides, dual clip, the KL held at
 * both edges and released.
 */
function rowsWithSpread(): LearnerRowV1[] {
  const rng = createRng('ppo-weights');
  const texts: [string, string][] = [
    ['Q: 1+1?', ' A: 2'],
    ['Q: a much longer question than the others here?', ' A: a longer answer'],
    ['Q: color of sky?', ' A: blue'],
    ['Q: x', ' A: y'],
    ['Q: what is the capital of France?', ' A: Paris'],
    ['Q: and of Italy?', ' A: Rome, of course'],
  ];
  return texts.map(([p, r], i) => {
    const n = tokenizer.encode(r).length;
    const around = (scale: number) => Array.from({ length: n }, () => -5.5 + scale * (rng.next() * 2 - 1));
    return {
      promptTokens: tokenizer.encode(p),
      responseTokens: tokenizer.encode(r),
      oldLogprobs: around(3),
      refLogprobs: around(12),
      advantage: [1.5, -2, 0, 0.7, -0.4, 3][i] as number,
    };
  });
}

/** The same loss without its closed form: the learner must score before each mini-batch. */
const withoutForm =
  (loss: TokenLossFn): TokenLossFn =>
  (input) =>
    loss(input);

describe('in-graph PPO weights', () => {
  for (const segmentRows of [false, true]) {
    it(`train like the token loss's own weights, with no scoring pass${segmentRows ? ' (segment rows)' : ''}`, async () => {
      const options: Partial<OnnxLearnerOptions> = {
        optimizer: { lr: 1e-2, weightDecay: 0, eps: 1 },
        microBatchRows: 2,
        segmentRows,
      };
      const fused = recordingRunner();
      const scored = recordingRunner();
      const a = await createOnnxLearner({ ...TINY_LEARNER, ...options, runner: fused.runner });
      const b = await createOnnxLearner({ ...TINY_LEARNER, ...options, runner: scored.runner });
      const rows = rowsWithSpread();
      for (const settings of [
        { klCoef: 0.3, klClamp: 2 },
        { klCoef: 0.3, klClamp: 2, klUpperEdge: 'release-advantaged' as const, dualClip: null },
        { clip: 0.1, clipHigh: 0.3, aggregation: 'seq-mean-token-mean' as const },
      ]) {
        const loss = ppoTokenLoss(settings);
        expect(loss.weightForm?.kind).toBe('ppo');
        const request = { rows, epochs: 2, miniBatchRows: 3, entropyCoef: 0.01 };
        const ra = await a.update({ ...request, loss });
        const rb = await b.update({ ...request, loss: withoutForm(loss) });
        expect(ra.steps).toBe(rb.steps);
        expect(ra.loss).toBeCloseTo(rb.loss, 4);
        for (const key of ['clipFraction', 'dualClipFraction', 'approxKl', 'refKl']) {
          expect(ra.stats[key] ?? 0, key).toBeCloseTo(rb.stats[key] ?? 0, 4);
        }
      }
      for (const [name, w] of a.weights) {
        const v = b.weights.get(name) as Float32Array;
        let diff = 0;
        w.forEach((x, i) => {
          diff = Math.max(diff, Math.abs(x - (v[i] as number)));
        });
        expect(diff, name).toBeLessThan(1e-5);
      }
      expect(fused.keys.filter((k) => k.startsWith('score:'))).toEqual([]);
      expect(fused.keys.every((k) => !k.startsWith('train:') || k.endsWith(':ppo'))).toBe(true);
      expect(scored.keys.filter((k) => k.startsWith('score:')).length).toBeGreaterThan(0);
      await a.dispose();
      await b.dispose();
    });
  }

  it('calls the token loss once per mini-batch, with or without its closed form', async () => {
    const learner = await createOnnxLearner({ ...TINY_LEARNER, runner: 'local' });
    const ppo = ppoTokenLoss({ klCoef: 0.1 });
    for (const form of [true, false]) {
      let calls = 0;
      const counted: TokenLossFn = Object.assign(
        (input: Parameters<TokenLossFn>[0]) => {
          calls++;
          return ppo(input);
        },
        form ? ppo : {},
      );
      const r = await learner.update({ rows: rowsWithSpread(), loss: counted, miniBatchRows: 3 });
      expect(calls, form ? 'with the form' : 'without').toBe(r.steps);
    }
    await learner.dispose();
  });

  it('refuses a KL coefficient without reference log-probs before any run', async () => {
    const { runner, keys } = recordingRunner();
    const learner = await createOnnxLearner({ ...TINY_LEARNER, runner });
    const rows = rowsWithSpread().map(({ refLogprobs: _, ...r }) => r);
    await expect(learner.update({ rows, loss: ppoTokenLoss({ klCoef: 0.1 }) })).rejects.toThrow(
      /refLogprobs/,
    );
    expect(keys).toEqual([]);
    await learner.dispose();
  });
});
