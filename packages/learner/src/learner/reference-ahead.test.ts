import type { LearnerRowV1, LogprobRowV1 } from '@mage-rl/core';
import { ppoTokenLoss } from '@mage-rl/gigpo';
import { describe, expect, it } from 'vitest';
import { TINY_LEARNER } from '../testing/tiny-config.test-helper';
import { createByteTokenizer } from '../tokenizer/tokenizer';
import { createOnnxLearner } from './onnx-learner';

const tokenizer = createByteTokenizer();

/** Six rows whose reference log-probs pull the KL term away from zero. */
function rows(): LearnerRowV1[] {
  const texts: [string, string][] = [
    ['Q: 1+1?', ' A: 2'],
    ['Q: a longer question than the others?', ' A: a longer answer'],
    ['Q: sky?', ' A: blue'],
    ['Q: x', ' A: y'],
    ['Q: capital of France?', ' A: Paris'],
    ['Q: and of Italy?', ' A: Rome'],
  ];
  return texts.map(([p, r], i) => {
    const responseTokens = tokenizer.encode(r);
    return {
      promptTokens: tokenizer.encode(p),
      responseTokens,
      oldLogprobs: responseTokens.map((_, j) => -5.5 + 0.1 * j),
      refLogprobs: responseTokens.map((_, j) => -3 - 0.4 * i + 0.2 * j),
      advantage: [1.5, -2, 0.3, 0.7, -0.4, 1][i] as number,
    };
  });
}

const key = (tokens: readonly number[]) => tokens.join(',');

/** A reference that answers from the rows' own `refLogprobs` and records the rows of each call. */
function referenceOf(source: readonly LearnerRowV1[]) {
  const byTokens = new Map(
    source.map((r) => [
      key([...r.promptTokens, ...r.responseTokens]),
      Float32Array.from(r.refLogprobs ?? []),
    ]),
  );
  const calls: number[] = [];
  const score = async (asked: readonly LogprobRowV1[]) => {
    calls.push(asked.length);
    return asked.map((r) => {
      if (!('tokens' in r)) throw new Error('expected the rows as token sequences with spans');
      return byTokens.get(key(r.tokens)) ?? new Float32Array(0);
    });
  };
  return { score, calls };
}

describe('reference log-probs one chunk ahead (referenceLogprobs)', () => {
  it('trains as with the reference log-probs in the rows, scoring each row once, in chunks of 1, 2, 4 …', async () => {
    const options = {
      ...TINY_LEARNER,
      optimizer: { lr: 1e-2, weightDecay: 0, eps: 1 },
      runner: 'local' as const,
    };
    const given = await createOnnxLearner(options);
    const ahead = await createOnnxLearner(options);
    expect(ahead.referenceAhead).toBe(true);
    const loss = ppoTokenLoss({ klCoef: 0.3, klClamp: 2 });
    const request = { loss, epochs: 2, miniBatchRows: 1, entropyCoef: 0.01 };
    const reference = referenceOf(rows());
    const a = await given.update({ ...request, rows: rows() });
    const b = await ahead.update({
      ...request,
      rows: rows().map(({ refLogprobs: _, ...r }) => r),
      referenceLogprobs: reference.score,
    });
    // Six mini-batches of one row: chunks of 1, 2 and 3 rows in the first epoch, nothing in the second.
    expect(reference.calls).toEqual([1, 2, 3]);
    expect(b.steps).toBe(a.steps);
    expect(b.loss).toBe(a.loss);
    expect(b.stats.refKl).toBe(a.stats.refKl);
    expect(a.stats.refKl ?? 0).toBeGreaterThan(0);
    for (const [name, w] of given.weights) expect(ahead.weights.get(name), name).toEqual(w);
    await given.dispose();
    await ahead.dispose();
  });

  it('rejects the update with the reference failure, also one that comes while a chunk trains', async () => {
    const learner = await createOnnxLearner({ ...TINY_LEARNER, runner: 'local' });
    const plain = rows().map(({ refLogprobs: _, ...r }) => r);
    const reference = referenceOf(rows());
    let calls = 0;
    const failing = async (asked: readonly LogprobRowV1[]) => {
      if (++calls === 2) throw new Error('reference worker gone');
      return reference.score(asked);
    };
    const loss = ppoTokenLoss({ klCoef: 0.1 });
    await expect(
      learner.update({ rows: plain, loss, miniBatchRows: 1, referenceLogprobs: failing }),
    ).rejects.toThrow('reference worker gone');
    const short = async (asked: readonly LogprobRowV1[]) => asked.map(() => new Float32Array(1));
    await expect(learner.update({ rows: plain, loss, referenceLogprobs: short })).rejects.toThrow(
      /returned 1 log-probs for a row of \d+ scored tokens/,
    );
    await learner.dispose();
  });
});
