import { ConfigError } from '@mage-rl/core';
import { resolveTrainConfig } from '@mage-rl/recipes';
import { createTestTokenizer, startFakeTinker } from '@mage-rl/tinker/testing';
import { describe, expect, it } from 'vitest';
import { tinkerApiKey, tinkerLearnerSettingsOf, tinkerLearners } from './tinker-learners';

const tinker = (fakeURL = 'https://tinker.example', loss: 'exact' | 'ppo' = 'exact', klCoef = 0) =>
  resolveTrainConfig({
    learner: { backend: 'tinker', tinker: { baseURL: fakeURL, baseModel: 'fake/base', loraRank: 8, loss } },
    ppo: { klCoef, lr: 0.01, clip: 0.25 },
  });

function thrown(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    return error as ConfigError;
  }
  throw new Error('expected an error');
}

describe("learner.backend 'tinker' in the trainer", () => {
  it('takes the learner settings from the config', () => {
    const s = tinkerLearnerSettingsOf(tinker('https://t', 'ppo'), 5);
    expect(s).toMatchObject({
      baseURL: 'https://t',
      apiKeyEnv: 'TINKER_API_KEY',
      baseModel: 'fake/base',
      loraRank: 8,
      seed: '5/learner',
      loss: { kind: 'ppo', clipLow: 0.25, clipHigh: 0.25 },
    });
    expect(s.adam?.learningRate).toBe(0.01);
  });

  it('names the missing API key variable and the missing tokenizer directory', async () => {
    const error = thrown(() => tinkerApiKey('MY_TINKER_KEY', {}));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.context.path).toBe('learner.tinker.apiKeyEnv');
    expect(error.message).toMatch(/MY_TINKER_KEY, which is not set/);
    await expect(tinkerLearners(tinker(), { seed: 1, env: { TINKER_API_KEY: 'tml-x' } })).rejects.toThrow(
      /needs --model: a directory with the base model's tokenizer.json/,
    );
  });

  it('creates the trained LoRA and, with a KL term, an untrained one that scores the reference', async () => {
    const tokenizer = createTestTokenizer(['a', 'b']);
    const fake = await startFakeTinker({ vocabSize: tokenizer.vocabSize, apiKey: 'tml-x' });
    try {
      const learners = await tinkerLearners(tinker(fake.baseURL, 'exact', 0.05), {
        seed: 1,
        model: '/unused-with-a-tokenizer',
        tokenizer,
        env: { TINKER_API_KEY: 'tml-x' },
      });
      expect(learners.learner.id).toBe('tinker:fake/base');
      expect(learners.reference).toBeDefined();
      const row = { promptTokens: tokenizer.encode('hi'), responseTokens: [0, 2] };
      const [ref] = (await learners.reference?.logprobs([row])) ?? [];
      expect([...(ref ?? [])]).toEqual([Math.fround(-Math.log(3)), Math.fround(-Math.log(3))]);
      expect(fake.requests.filter((r) => r.endpoint === '/api/v1/create_model')).toHaveLength(2);
      await learners.dispose();
    } finally {
      await fake.close();
    }
  });
});
