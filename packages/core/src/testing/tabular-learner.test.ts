import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LearnerRowV1, TokenLossFn } from '@mage-rl/spec';
import { CheckpointError, ConfigError, NumericInstabilityError } from '@mage-rl/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTabularLearner, decodePromptKey, encodePromptKey } from './tabular-learner';

const CANDIDATES = ['a', 'b', 'c'];

/** A loss whose per-token weights are given directly (w = −∂loss/∂log p). */
const fixedWeights =
  (weights: readonly number[]): TokenLossFn =>
  ({ logprobs }) => ({
    weights: Float32Array.from(logprobs, (_, j) => weights[j] ?? 0),
    loss: 0,
    stats: {},
  });

const row = (key: string, token: number, advantage = 1): LearnerRowV1 => ({
  promptTokens: encodePromptKey(key),
  responseTokens: [token],
  oldLogprobs: [Math.log(1 / 3)],
  advantage,
});

function surrogate(p: Float64Array, token: number, w: number, c: number): number {
  let h = 0;
  for (const x of p) h -= x > 0 ? x * Math.log(x) : 0;
  return -w * Math.log(p[token] as number) - c * h;
}

describe('createTabularLearner', () => {
  it('round-trips prompt keys through tokens', () => {
    fc.assert(fc.property(fc.string(), (s) => decodePromptKey(encodePromptKey(s)) === s));
  });

  it('samples candidates with exact log-probs, reproducibly per request seed', async () => {
    const learner = createTabularLearner({ candidates: CANDIDATES, seed: 1 });
    const requests = Array.from({ length: 50 }, (_, i) => ({
      messages: [{ role: 'user' as const, content: `k${i % 3}` }],
      phase: 'play' as const,
      seed: i,
    }));
    const a = await learner.policy.generate(requests);
    const b = await learner.policy.generate(requests.slice().reverse());
    expect(a.map((r) => r.text)).toEqual(b.map((r) => r.text).reverse());
    expect(new Set(a.map((r) => r.text)).size).toBe(3);
    for (const r of a) {
      expect(r.text).toBe(CANDIDATES[r.tokens[0] as number]);
      expect(r.logprobs[0]).toBeCloseTo(Math.log(1 / 3), 12);
      expect(decodePromptKey(r.promptTokens)).toMatch(/^k[012]$/);
    }
  });

  it('takes the exact softmax gradient step of −w·log p (SGD, no clipping)', async () => {
    const learner = createTabularLearner({
      candidates: CANDIDATES,
      seed: 1,
      lr: 1,
      optimizer: 'sgd',
      maxGradNorm: 1e9,
    });
    const result = await learner.update({ rows: [row('k', 0)], loss: fixedWeights([1]), entropyCoef: 0 });
    expect(result.steps).toBe(1);
    // grad = −(onehot(0) − 1/3) → logits [2/3, −1/3, −1/3]
    const e = [Math.exp(2 / 3), Math.exp(-1 / 3), Math.exp(-1 / 3)];
    const z = e[0]! + e[1]! + e[2]!;
    const p = learner.probabilities('k');
    e.forEach((x, i) => {
      expect(p[i]).toBeCloseTo(x / z, 12);
    });
    expect(learner.probabilities('other')[0]).toBeCloseTo(1 / 3, 12);
    const [lp] = await learner.logprobs([row('k', 0)]);
    expect(lp?.[0]).toBeCloseTo(Math.log(e[0]! / z), 6);
  });

  it('steps along the exact gradient of −w·log p − c·H (property, finite differences)', async () => {
    const lossAt = (theta: readonly number[], token: number, w: number, c: number): number => {
      const m = Math.max(...theta);
      const z = theta.reduce((acc, t) => acc + Math.exp(t - m), 0);
      return surrogate(
        Float64Array.from(theta, (t) => Math.exp(t - m) / z),
        token,
        w,
        c,
      );
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.integer({ min: -300, max: 300 }).map((x) => x / 100),
          { minLength: 1, maxLength: 4 },
        ),
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: -200, max: 200 }).map((x) => x / 100),
        fc.integer({ min: 0, max: 100 }).map((x) => x / 100),
        async (warmup, token, w, c) => {
          const learner = createTabularLearner({
            candidates: CANDIDATES,
            seed: 2,
            lr: 0.3,
            optimizer: 'sgd',
          });
          for (const [i, x] of warmup.entries()) {
            await learner.update({ rows: [row('k', i % 3)], loss: fixedWeights([x]), entropyCoef: 0 });
          }
          const theta = Array.from(learner.probabilities('k'), Math.log);
          const lr = 1e-6;
          const small = createTabularLearner({
            candidates: CANDIDATES,
            seed: 2,
            lr,
            optimizer: 'sgd',
            maxGradNorm: 1e9,
          });
          const dir = await mkdtemp(join(tmpdir(), 'mage-tab-'));
          await learner.save(dir);
          await small.load(dir);
          await small.update({ rows: [row('k', token)], loss: fixedWeights([w]), entropyCoef: c });
          // Softmax gradients sum to 0, so the logit step is Δlog p minus its mean.
          const delta = Array.from(small.probabilities('k'), (p, i) => Math.log(p) - (theta[i] as number));
          const meanDelta = delta.reduce((a, b) => a + b, 0) / delta.length;
          for (let i = 0; i < 3; i++) {
            const eps = 1e-5;
            const plus = theta.map((t, j) => (j === i ? t + eps : t));
            const minus = theta.map((t, j) => (j === i ? t - eps : t));
            const numeric = (lossAt(plus, token, w, c) - lossAt(minus, token, w, c)) / (2 * eps);
            const stepped = -((delta[i] as number) - meanDelta) / lr;
            expect(stepped).toBeCloseTo(numeric, 3);
          }
        },
      ),
      { numRuns: 30, seed: 11 },
    );
  });

  it('saves and loads exactly; training continues identically', async () => {
    const a = createTabularLearner({ candidates: CANDIDATES, seed: 5, lr: 0.05 });
    const rows = ['x', '7', 'y', '12'].flatMap((k, i) => [row(k, i % 3, 1), row(k, (i + 1) % 3, -0.5)]);
    const loss: TokenLossFn = ({ advantages }) => ({
      weights: Float32Array.from(advantages, (x) => x / advantages.length),
      loss: 0,
      stats: {},
    });
    await a.update({ rows, loss, epochs: 2, miniBatchRows: 3 });
    const dir = await mkdtemp(join(tmpdir(), 'mage-tab-'));
    await a.save(dir);
    const b = createTabularLearner({ candidates: CANDIDATES, seed: 5, lr: 0.05 });
    await b.load(dir);
    expect(b.keys()).toEqual(a.keys());
    expect(b.step).toBe(a.step);
    await a.update({ rows, loss, epochs: 1, miniBatchRows: 3 });
    await b.update({ rows, loss, epochs: 1, miniBatchRows: 3 });
    for (const k of a.keys()) expect(Array.from(b.probabilities(k))).toEqual(Array.from(a.probabilities(k)));
  });

  it('skips NaN steps, keeps the weights, and throws after 3 in a row', async () => {
    const learner = createTabularLearner({ candidates: CANDIDATES, seed: 1 });
    await learner.update({ rows: [row('k', 0)], loss: fixedWeights([1]) });
    const before = Array.from(learner.probabilities('k'));
    const nan = fixedWeights([Number.NaN]);
    const r = await learner.update({ rows: [row('k', 0)], loss: nan });
    expect(r).toMatchObject({ steps: 0, skippedSteps: 1 });
    expect(Array.from(learner.probabilities('k'))).toEqual(before);
    // A good step resets the count.
    await learner.update({ rows: [row('k', 0)], loss: fixedWeights([1]) });
    await learner.update({ rows: [row('k', 0)], loss: nan });
    await learner.update({ rows: [row('k', 0)], loss: nan });
    await expect(learner.update({ rows: [row('k', 0)], loss: nan })).rejects.toBeInstanceOf(
      NumericInstabilityError,
    );
  });

  it('rejects bad options with the path, the value and the allowed range', () => {
    const error = (() => {
      try {
        createTabularLearner({ candidates: CANDIDATES, seed: 1, lr: -1 });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).context.path).toBe('lr');
    expect((error as ConfigError).message).toContain('-1');
    expect((error as ConfigError).message).toContain('> 0');
    expect(() => createTabularLearner({ candidates: ['only'], seed: 1 })).toThrow(/candidates.*at least 2/);
  });

  it('rejects corrupt or foreign checkpoints with CheckpointError', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mage-tab-'));
    const learner = createTabularLearner({ candidates: CANDIDATES, seed: 1 });
    await expect(learner.load(dir)).rejects.toBeInstanceOf(CheckpointError);
    await writeFile(join(dir, 'tabular-learner.json'), '{"format": "mage-rl/tabular-learner@1", "cand');
    await expect(learner.load(dir)).rejects.toBeInstanceOf(CheckpointError);
    await createTabularLearner({ candidates: ['x', 'y'], seed: 1 }).save(dir);
    await expect(learner.load(dir)).rejects.toThrow(/different candidates/);
  });
});
