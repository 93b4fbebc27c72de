import { CheckpointError, type LearnerRowV1, NumericInstabilityError, type TokenLossFn } from '@mage-rl/core';
import { ppoTokenLoss } from '@mage-rl/gigpo';
import { describe, expect, it } from 'vitest';
import { createTinkerClient } from '../client/tinker-client';
import type { FakeTinker } from '../testing/fake-service';
import { useFakeTinker } from '../testing/fake-tinker.test-helper';
import { createTestTokenizer } from '../testing/test-tokenizer';
import { createTinkerLearner, type TinkerLearnerOptions } from './tinker-learner';

const tokenizer = createTestTokenizer(['yes', 'no']);
const tinker = useFakeTinker();

async function learnerOn(f: FakeTinker, options: Partial<TinkerLearnerOptions> = {}) {
  const client = createTinkerClient({ baseURL: f.baseURL, heartbeatMs: 0 });
  return createTinkerLearner({
    client,
    baseModel: 'fake/base',
    loraRank: 4,
    tokenizer,
    seed: 1,
    adam: { learningRate: 0.1 },
    ...options,
  });
}

/** Two rows after the same prompt: `yes` rewarded, `no` punished, sampled at the base model's log-probs. */
function rows(): LearnerRowV1[] {
  const prompt = tokenizer.encodeChat([{ role: 'user', content: 'ok?' }]);
  const uniform = -Math.log(tokenizer.vocabSize);
  return [
    { promptTokens: prompt, responseTokens: [0, 2], oldLogprobs: [uniform, uniform], advantage: 1 },
    { promptTokens: prompt, responseTokens: [1, 2], oldLogprobs: [uniform, uniform], advantage: -1 },
  ];
}

describe('the Tinker learner', () => {
  it('scores response tokens with the service and raises the rewarded response after an update', async () => {
    const fake = await tinker.start({ vocabSize: tokenizer.vocabSize });
    const learner = await learnerOn(fake);
    const [before] = await learner.logprobs([rows()[0] as LearnerRowV1]);
    expect([...(before ?? [])]).toEqual([Math.fround(-Math.log(3)), Math.fround(-Math.log(3))]);
    const result = await learner.update({ rows: rows(), loss: ppoTokenLoss() });
    expect(result.steps).toBe(1);
    expect(result.tokens).toBe(4);
    expect(fake.steps(learner.modelId)).toBe(1);
    const prompt = rows()[0]?.promptTokens ?? [];
    expect(fake.logprob(learner.modelId, prompt, 0)).toBeGreaterThan(-Math.log(3));
    expect(fake.logprob(learner.modelId, prompt, 1)).toBeLessThan(-Math.log(3));
    // The policy samples from the sampler weights published after the update.
    expect(learner.samplerPath).toMatch(/sampler_weights\/mage-sampler-step-1$/);
    const [response] = await learner.policy.generate(
      [{ messages: [{ role: 'user', content: 'ok?' }], phase: 'play', seed: 3, maxTokens: 1 }],
      { temperature: 0 },
    );
    expect(response?.text).toBe('yes');
    expect(response?.logprobs[0]).toBeCloseTo(fake.logprob(learner.modelId, prompt, 0), 5);
  });

  it("maps MAGE's PPO loss onto Tinker's ppo loss: the same step as the exact mapping", async () => {
    const fake = await tinker.start({ vocabSize: tokenizer.vocabSize });
    const exact = await learnerOn(fake);
    const builtin = await learnerOn(fake, { loss: { kind: 'ppo', clipLow: 0.2, clipHigh: 0.2 } });
    const sampled = rows();
    for (const learner of [exact, builtin]) {
      // Three epochs: the later ones run off-policy, where the ratio and its clipping matter.
      await learner.update({ rows: sampled, loss: ppoTokenLoss(), epochs: 3 });
    }
    const prompt = sampled[0]?.promptTokens ?? [];
    for (const token of [0, 1, 2]) {
      expect(fake.logprob(builtin.modelId, prompt, token)).toBeCloseTo(
        fake.logprob(exact.modelId, prompt, token),
        5,
      );
    }
    expect(fake.requests.filter((r) => r.endpoint === '/api/v1/forward').length).toBe(3);
  });

  it('maps importance sampling onto Tinker’s importance_sampling loss', async () => {
    const fake = await tinker.start({ vocabSize: tokenizer.vocabSize });
    const learner = await learnerOn(fake, { loss: { kind: 'importance_sampling' } });
    await learner.update({ rows: rows(), loss: ppoTokenLoss() });
    const sent = fake.requests.find((r) => r.endpoint === '/api/v1/forward_backward')?.body as {
      forward_backward_input: {
        loss_fn: string;
        data: { loss_fn_inputs: Record<string, { data: number[] }> }[];
      };
    };
    expect(sent.forward_backward_input.loss_fn).toBe('importance_sampling');
    // Per-token advantages, 0 on prompt positions, divided by the mini-batch's 4 response tokens.
    const advantages = sent.forward_backward_input.data[0]?.loss_fn_inputs.advantages?.data ?? [];
    expect(advantages.slice(-2)).toEqual([0.25, 0.25]);
    expect(advantages.slice(0, -2).every((a) => a === 0)).toBe(true);
  });

  it('saves the remote state path and resumes it in a new session with the optimizer state', async () => {
    const fake = await tinker.start({ vocabSize: tokenizer.vocabSize });
    const dir = await tinker.tempDir('mage-tinker-');
    const first = await learnerOn(fake);
    await first.update({ rows: rows(), loss: ppoTokenLoss() });
    await first.save(dir);
    await first.update({ rows: rows(), loss: ppoTokenLoss() });
    const afterTwo = await first.logprobs(rows());
    await first.dispose();

    const second = await learnerOn(fake);
    expect(second.modelId).not.toBe(first.modelId);
    await second.load(dir);
    expect(second.step).toBe(1);
    expect(second.samplerPath).not.toBeNull();
    await second.update({ rows: rows(), loss: ppoTokenLoss() });
    // Same weights and Adam moments restored: the second step lands where the first learner's did.
    const resumed = await second.logprobs(rows());
    expect(resumed.map((a) => [...a])).toEqual(afterTwo.map((a) => [...a]));
  });

  it('refuses a checkpoint of another base model or rank', async () => {
    const fake = await tinker.start({ vocabSize: tokenizer.vocabSize });
    const dir = await tinker.tempDir('mage-tinker-');
    await (await learnerOn(fake)).save(dir);
    const other = await learnerOn(fake, { loraRank: 8 });
    await expect(other.load(dir)).rejects.toThrow(CheckpointError);
    await expect(other.load(dir)).rejects.toThrow(/rank 4 on fake\/base; this learner trains rank 8/);
  });

  it('skips steps whose loss is not finite and throws after three in a row', async () => {
    const fake = await tinker.start({ vocabSize: tokenizer.vocabSize });
    const learner = await learnerOn(fake);
    const nan: TokenLossFn = (input) => ({
      weights: new Float32Array(input.logprobs.length),
      loss: Number.NaN,
      stats: {},
    });
    const skipped = await learner.update({ rows: rows(), loss: nan, miniBatchRows: 1 });
    expect(skipped.steps).toBe(0);
    expect(skipped.skippedSteps).toBe(2);
    expect(fake.steps(learner.modelId)).toBe(0);
    await expect(learner.update({ rows: rows(), loss: nan, miniBatchRows: 1 })).rejects.toThrow(
      NumericInstabilityError,
    );
  });

  it('refuses bad options with a config error naming the option', async () => {
    const fake = await tinker.start({ vocabSize: tokenizer.vocabSize });
    await expect(learnerOn(fake, { loraRank: 0 })).rejects.toThrow(/loraRank must be an integer >= 1, got 0/);
    await expect(learnerOn(fake, { baseModel: '' })).rejects.toThrow(/baseModel must be a non-empty string/);
  });
});
