import { createRng } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { serializeGraph } from '../graph/serialize';
import { createOrtSession, type TensorValue } from '../runtime/session';
import { defaultVocabChunk } from './lm-head-vocab';
import { expectExactModelGradients, tinyConfig } from './model.test-helper';
import { initParams, paramSpecs } from './params';
import { buildTrainingGraph } from './training-graph';

const tiny = (tie: boolean, vocabSize = 37) => tinyConfig('qwen3', vocabSize, tie);

const B = 2;
const T = 5;
/** Scored positions: a repeated one and padding-like repeats of position 0 (with their own weights). */
const SCORED = [1, 2, 4, 6, 7, 9, 9, 0];

describe('vocabulary-chunked LM head: gradients (fp64, central differences)', () => {
  for (const [tie, scored, vocabChunk] of [
    [true, false, 8],
    [false, false, 8],
    [true, true, 16],
    [false, true, 5],
  ] as const) {
    it(`${tie ? 'tied' : 'untied'} embeddings, chunks of ${vocabChunk} ids${scored ? ', scored positions only' : ''}`, async () => {
      await expectExactModelGradients({
        config: tiny(tie),
        seed: 7,
        batch: B,
        seqLen: T,
        loss: { vocabChunk },
        ...(scored ? { scored: SCORED } : {}),
        // Repeated targets: the one-hot scatter must add, not overwrite.
        targets: (ids) => {
          ids[1] = ids[0] as bigint;
        },
      });
    });
  }
});

/** Runs a float32 training graph on fixed inputs; the feeds of `scored` gather the dense outputs. */
async function runTraining(
  tie: boolean,
  head: { vocabChunk?: number; scored?: readonly number[] },
): Promise<Record<string, Float32Array>> {
  const config = tiny(tie, 300);
  const built = buildTrainingGraph({
    config,
    batch: B,
    seqLen: T,
    ...(head.vocabChunk === undefined ? {} : { vocabChunk: head.vocabChunk }),
    ...(head.scored === undefined ? {} : { scored: head.scored.length }),
  });
  const session = await createOrtSession(serializeGraph(built.graph));
  const init = initParams(config, createRng(9), { std: 0.5 });
  const rng = createRng(4);
  const feeds: Record<string, TensorValue> = {};
  for (const s of paramSpecs(config))
    feeds[s.name] = { data: init.get(s.name) as Float32Array, dims: s.shape };
  const ids = BigInt64Array.from({ length: B * T }, () => BigInt(rng.int(config.vocabSize)));
  const targets = BigInt64Array.from({ length: B * T }, () => BigInt(rng.int(config.vocabSize)));
  const weights = Float32Array.from({ length: B * T }, (_, i) => (i % 3 === 0 ? 0 : 0.1 + 0.01 * i));
  const entropyWeights = Float32Array.from(weights, (w) => (w === 0 ? 0 : 0.01));
  const pick = <A extends Float32Array | BigInt64Array>(x: A, make: (n: number) => A): A => {
    if (head.scored === undefined) return x;
    const out = make(head.scored.length);
    head.scored.forEach((q, k) => {
      out[k] = x[q] as A[number];
    });
    return out;
  };
  const M = head.scored?.length ?? B * T;
  feeds.input_ids = { data: ids, dims: [B, T] };
  feeds.targets = { data: pick(targets, (n) => new BigInt64Array(n)), dims: [M] };
  feeds.weights = { data: pick(weights, (n) => new Float32Array(n)), dims: [M] };
  feeds.entropy_weights = { data: pick(entropyWeights, (n) => new Float32Array(n)), dims: [M] };
  if (head.scored !== undefined) feeds.scored = { data: BigInt64Array.from(head.scored, BigInt), dims: [M] };
  const out = await session.run(feeds);
  await session.dispose();
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.data as Float32Array]));
}

/** max |a − b| / max |a| (norm-wise relative difference). */
const relDiff = (a: Float32Array, b: Float32Array): number => {
  let d = 0;
  let s = 0;
  a.forEach((x, i) => {
    d = Math.max(d, Math.abs(x - (b[i] as number)));
    s = Math.max(s, Math.abs(x));
  });
  return d / Math.max(s, 1e-30);
};

describe('vocabulary-chunked LM head: equal to the row-chunked head (float32)', () => {
  for (const tie of [true, false]) {
    it(`${tie ? 'tied' : 'untied'}: loss, log-probs, entropies and every gradient within 1e-5`, async () => {
      const rows = await runTraining(tie, {});
      for (const vocabChunk of [64, 300]) {
        const chunked = await runTraining(tie, { vocabChunk });
        expect(Object.keys(chunked).sort()).toEqual(Object.keys(rows).sort());
        for (const [name, value] of Object.entries(rows)) {
          expect(relDiff(value, chunked[name] as Float32Array), name).toBeLessThan(1e-5);
        }
      }
    });

    it(`${tie ? 'tied' : 'untied'}: the head at scored positions only gives the dense head's values there`, async () => {
      // Weights 0 at positions 0, 3, 6, 9: leaving out 3 and scoring 0 twice changes no gradient.
      const scored = [1, 2, 4, 5, 7, 8, 0, 0, 9, 6];
      const dense = await runTraining(tie, {});
      const sparse = await runTraining(tie, { scored });
      for (const name of ['logprobs', 'entropy']) {
        const want = Float32Array.from(scored, (q) => dense[name]?.[q] as number);
        expect(relDiff(want, sparse[name] as Float32Array), name).toBeLessThan(1e-5);
      }
      for (const name of Object.keys(dense).filter((k) => k.startsWith('grad.') || k === 'loss')) {
        expect(relDiff(dense[name] as Float32Array, sparse[name] as Float32Array), name).toBeLessThan(1e-5);
      }
    });
  }

  it('chunks about 4 M logits, at least 1,024 ids, never more than the vocabulary', () => {
    expect(defaultVocabChunk(512, 151_936)).toBe(8192);
    expect(defaultVocabChunk(4096, 151_936)).toBe(1024);
    expect(defaultVocabChunk(16, 5000)).toBe(5000);
  });
});
