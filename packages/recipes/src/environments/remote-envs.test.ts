import { ConfigError } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { evaluationSuites } from '../evaluation';
import { memoryLayoutOf, resolveTrainConfig } from '../presets';
import { createEnvById } from '../wiring';

const url = 'http://127.0.0.1:36001';

describe('envs on servers', () => {
  it('ALFWorld and WebShop resolve with their address, train on the train split and evaluate in-domain', () => {
    for (const env of ['alfworld', 'webshop']) {
      const c = resolveTrainConfig({ env: { options: { url } } }, { env, preset: 'smoke', method: 'mage' });
      expect(c.env.options).toEqual({ split: 'train', url });
      expect(c.eval.envOptions).toEqual({ split: 'in-domain' });
      expect(c.rollout.seats).toBe('first');
      expect(c.rollout.historyWindow).toBe(env === 'alfworld' ? 15 : 20);
      expect(memoryLayoutOf(c)).toEqual({ historyWindow: env === 'alfworld' ? 15 : 20 });
      const suites = evaluationSuites(c);
      expect(suites.map((s) => [s.name, s.envOptions])).toEqual([['in-domain', { split: 'in-domain', url }]]);
      expect(createEnvById(env, suites[0]!.envOptions).maxTurns).toBe(env === 'alfworld' ? 10 : 12);
    }
  });

  it('without an address the config is refused, naming --env-url', () => {
    expect(() => resolveTrainConfig({}, { env: 'alfworld' })).toThrow(ConfigError);
    expect(() => resolveTrainConfig({}, { env: 'webshop' })).toThrow(/webshop\.url.*--env-url/);
  });

  it('an in-process env with a url is played on that mage env-serve server, its options its own', () => {
    const local = createEnvById('sokoban', { boxes: 3 });
    const served = createEnvById('sokoban', { boxes: 3, url, retries: 1 });
    expect(served.id).toBe('sokoban');
    expect(served.options).toEqual({ ...local.options, url });
    expect(served.maxTurns).toBe(local.maxTurns);
    expect(() => createEnvById('sokoban', { url: 'nope' })).toThrow(/sokoban\.url.*http:\/\//);
    expect(() => createEnvById('sokoban', { url, retries: -1 })).toThrow(/sokoban\.retries/);
    expect(() => createEnvById('sokoban', { url, boxes: 99 })).toThrow(/sokoban\.boxes/);
    const c = resolveTrainConfig({ env: { options: { url } } }, { env: 'sokoban', preset: 'smoke' });
    expect(c.rollout).not.toHaveProperty('historyWindow'); // the memory's default, as before
    expect(memoryLayoutOf(c)).toEqual({});
    expect(evaluationSuites(c).every((s) => s.envOptions.url === url)).toBe(true);
  });
});
