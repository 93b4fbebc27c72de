import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LearnerRowV1, MageError, type PolicyRequestV1, type TokenLossFn } from '@mage-rl/core';
import { afterAll, describe, expect, it } from 'vitest';
import type { LoraOptions } from '../lora/lora';
import { createWorkerRunner, type GraphRunner } from '../runtime/runner';
import { TINY_CONFIG, TINY_LEARNER } from '../testing/tiny-config.test-helper';
import { createByteTokenizer } from '../tokenizer/tokenizer';
import { createOnnxLearner, type OnnxLearner } from './onnx-learner';

const config = TINY_CONFIG;
const tokenizer = createByteTokenizer();
const root = await mkdtemp(join(tmpdir(), 'mage-inference-only-'));
const open: OnnxLearner[] = [];
afterAll(async () => {
  for (const l of open) await l.dispose();
  await rm(root, { recursive: true, force: true });
});

/** A learner on its own worker runner, whose `setPersistent` calls are recorded (transferred or not). */
async function learnerOf(
  options: { weights?: ReadonlyMap<string, Float32Array>; inferenceOnly?: boolean; lora?: LoraOptions } = {},
): Promise<{ learner: OnnxLearner; transfers: boolean[] }> {
  const worker = createWorkerRunner();
  const transfers: boolean[] = [];
  const runner: GraphRunner = {
    ...worker,
    setPersistent(values, o) {
      transfers.push(o?.transfer === true);
      return worker.setPersistent(values, o);
    },
    dispose: () => worker.dispose(),
  };
  const learner = await createOnnxLearner({
    ...TINY_LEARNER,
    runner,
    ...options,
  });
  open.push({ ...learner, dispose: () => runner.dispose() });
  return { learner, transfers };
}

const copies = (store: ReadonlyMap<string, Float32Array>) =>
  new Map([...store].map(([name, w]) => [name, Float32Array.from(w)]));

const crossEntropy: TokenLossFn = (input) => {
  const n = input.logprobs.length;
  let loss = 0;
  for (const x of input.logprobs) loss -= x / n;
  return { weights: new Float32Array(n).fill(1 / n), loss, stats: { tokens: n } };
};

const rows: LearnerRowV1[] = [
  ['the prompt', ' a response'],
  ['another', ' reply here'],
].map(([p, r]) => ({
  promptTokens: tokenizer.encode(p as string),
  responseTokens: tokenizer.encode(r as string),
  oldLogprobs: new Array((r as string).length).fill(0),
  advantage: 1,
}));

const requests: PolicyRequestV1[] = [
  { messages: [{ role: 'user', content: 'hi' }], phase: 'play', seed: 1, maxTokens: 12 },
  { messages: [{ role: 'user', content: 'a longer prompt' }], phase: 'play', seed: 2, maxTokens: 9 },
];

/** Tokens and log-probs of greedy and sampled generations, and the log-probs of `rows`. */
async function outputsOf(learner: OnnxLearner) {
  const sampled = await learner.policy.generate(requests, { temperature: 1 });
  const greedy = await learner.policy.generate(requests, { temperature: 0 });
  const scored = await learner.logprobs(rows);
  return {
    generations: [...sampled, ...greedy].map((r) => ({ tokens: r.tokens, logprobs: r.logprobs })),
    scored: scored.map((x) => Array.from(x)),
  };
}

describe('inference-only learner (weights held once, by the runner)', () => {
  it('takes the given weights: detached after the upload, same generations and log-probs as a training learner', async () => {
    const { learner: trainer, transfers: trainerTransfers } = await learnerOf();
    const given = copies(trainer.weights);
    const { learner, transfers } = await learnerOf({ weights: given, inferenceOnly: true });
    expect(transfers).toEqual([true]);
    for (const [name, w] of given) expect(w.byteLength, name).toBe(0);
    expect(learner.weights.size).toBe(0);
    expect(await outputsOf(learner)).toEqual(await outputsOf(trainer));
    // The training learner uploaded copies and keeps its own weights.
    expect(trainerTransfers).toEqual([false]);
    for (const w of trainer.weights.values()) expect(w.length).toBeGreaterThan(0);
  });

  it('a training learner keeps the given weights and its own, and uploads copies after every step', async () => {
    const given = copies((await learnerOf()).learner.weights);
    const { learner, transfers } = await learnerOf({ weights: given });
    const before = await learner.logprobs(rows);
    for (const [name, w] of learner.weights) {
      expect(w, name).not.toBe(given.get(name));
      expect(given.get(name)?.length, name).toBe(w.length);
    }
    await learner.update({ rows, loss: crossEntropy, epochs: 1, miniBatchRows: 2 });
    expect(transfers).toEqual([false, false]);
    for (const [name, w] of learner.weights) expect(w.length, name).toBe(given.get(name)?.length);
    // The runner got the updated weights.
    expect(Array.from((await learner.logprobs(rows))[0] ?? [])).not.toEqual(Array.from(before[0] ?? []));
  });

  it('on the local runner (the KL reference model) scores like a training learner and keeps no weights', async () => {
    const { learner: trainer } = await learnerOf();
    const reference = await createOnnxLearner({
      config,
      tokenizer,
      weights: copies(trainer.weights),
      runner: 'local',
      inferenceOnly: true,
    });
    open.push(reference);
    expect(reference.weights.size).toBe(0);
    const scored = await reference.logprobs(rows);
    const expected = await trainer.logprobs(rows);
    scored.forEach((x, i) => {
      expect(Array.from(x)).toEqual(Array.from(expected[i] ?? []).map((v) => expect.closeTo(v, 5)));
    });
  });

  it('refuses to update, save or return its weights', async () => {
    const { learner } = await learnerOf({ inferenceOnly: true });
    const code = (e: unknown) => (MageError.isInstance(e) ? e.code : e);
    await expect(learner.update({ rows, loss: crossEntropy }).catch(code)).resolves.toBe('INVALID_ARGUMENT');
    await expect(learner.save(join(root, 'never')).catch(code)).resolves.toBe('INVALID_ARGUMENT');
    expect(() => learner.mergedWeights()).toThrow(/inference-only/);
  });

  it("loads a checkpoint's weights and adapters (LoRA) and hands them over: same outputs as the learner that saved it", async () => {
    const lora: LoraOptions = { rank: 2, alpha: 4 };
    const { learner: trainer } = await learnerOf({ lora });
    await trainer.update({ rows, loss: crossEntropy, epochs: 2, miniBatchRows: 2 });
    const dir = join(root, 'lora-ck');
    await trainer.save(dir);
    const { learner, transfers } = await learnerOf({ lora, inferenceOnly: true });
    await learner.load(dir);
    expect(transfers).toEqual([true, true]);
    expect(learner.weights.size + learner.adapters.size).toBe(0);
    expect(await outputsOf(learner)).toEqual(await outputsOf(trainer));
  });
});
