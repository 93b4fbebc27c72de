import { resolveTrainConfig } from '@mage-rl/recipes';
import { describe, expect, it } from 'vitest';
import { evaluatePolicy, evaluationSetup } from './evaluate-policy';
import type { TrainedWithV1 } from './load-policy';

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

  it("plays with the config's early stop: every attempt when it is off", async () => {
    const play = (earlyStop: boolean) =>
      evaluatePolicy({
        policy: 'teacher',
        env: 'tictactoe',
        preset: 'smoke',
        opponents: ['random'],
        overrides: { eval: { earlyStop } },
        episodes: 8,
        attempts: 3,
        seed: 3,
        baseline: false,
      });
    const played = async (earlyStop: boolean) =>
      (await play(earlyStop)).result.metrics.overall.perAttempt.map((a) => a.played);
    expect(await played(false)).toEqual([8, 8, 8]);
    // With it on, attempts after a win are not played.
    expect((await played(true))[2]).toBeLessThan(8);
  });

  describe('evaluationSetup', () => {
    const kuhnRun: TrainedWithV1 = {
      method: 'mage',
      memory: 'reflection+history',
      env: 'kuhn-poker',
      task: { env: { options: { mode: 'new-deal' } }, eval: { inDomain: ['aggressive'] } },
    };
    const base = { policy: 'runs/kuhn', preset: 'smoke' as const };

    it("plays a run's own method, memory and task on the env it trained on", () => {
      // Without an env, a run plays the one it trained on; anything else the config's default env.
      expect(evaluationSetup(base, kuhnRun).config.env.id).toBe('kuhn-poker');
      expect(evaluationSetup({ ...base, policy: 'teacher' }, undefined).config.env.id).toBe('tictactoe');
      const s = evaluationSetup({ ...base, env: 'kuhn-poker' }, kuhnRun);
      expect([s.method, s.memory, s.opponents]).toEqual([
        'mage',
        'reflection+history',
        ['aggressive', 'cfr'],
      ]);
      expect(s.config.env.options).toMatchObject({ mode: 'new-deal' });
    });

    it('lets the overrides and a given method win, and leaves the task out on another env', () => {
      const s = evaluationSetup(
        {
          ...base,
          env: 'kuhn-poker',
          method: 'react',
          overrides: { env: { options: { mode: 'same-deal' } } },
        },
        kuhnRun,
      );
      expect([s.method, s.memory]).toEqual(['react', 'none']);
      expect(s.config.env.options).toMatchObject({ mode: 'same-deal' });
      const other = evaluationSetup({ ...base, env: 'tictactoe' }, kuhnRun);
      const preset = resolveTrainConfig({}, { preset: 'smoke', method: 'mage', env: 'tictactoe' });
      expect(other.config.env.options).toEqual(preset.env.options);
      expect(other.opponents).toEqual([...preset.eval.inDomain, ...preset.eval.outOfDomain]);
    });
  });
});
