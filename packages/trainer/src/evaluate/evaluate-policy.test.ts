import { resolveTrainConfig } from '@mage-rl/recipes';
import { describe, expect, it } from 'vitest';
import { evaluatePolicy } from './evaluate-policy';

describe('evaluatePolicy', () => {
  it('plays the teacher with reflexion against the evaluation protocol’s opponents by default', async () => {
    const r = await evaluatePolicy({
      policy: 'teacher',
      env: 'tictactoe',
      preset: 'smoke',
      episodes: 1,
      attempts: 2,
      seed: 3,
      baseline: false,
    });
    const config = resolveTrainConfig({}, { preset: 'smoke', method: 'reflexion', env: 'tictactoe' });
    expect(r.method).toBe('reflexion');
    expect(r.memory).toBe('reflection');
    expect(r.opponents).toEqual([...config.eval.inDomain, ...config.eval.outOfDomain]);
    expect(Object.keys(r.result.metrics.byOpponent).sort()).toEqual([...r.opponents].sort());
    expect(r.withoutMemory).toBeUndefined();
  });

  it('takes the method, memory and opponents given, and pairs the memory with none on the same tasks', async () => {
    const r = await evaluatePolicy({
      policy: 'teacher',
      env: 'tictactoe',
      method: 'react',
      memory: 'history',
      preset: 'smoke',
      opponents: ['random'],
      episodes: 2,
      attempts: 2,
      seed: 3,
    });
    expect([r.method, r.memory, r.opponents]).toEqual(['react', 'history', ['random']]);
    expect(r.result.metrics.overall.metaEpisodes).toBe(2);
    expect(r.withoutMemory?.benefit.pairs).toBe(2);
  });
});
