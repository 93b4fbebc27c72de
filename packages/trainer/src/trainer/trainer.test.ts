import { join } from 'node:path';
import * as core from '@mage-rl/core';
import { useTempDir } from '@mage-rl/core/testing/vitest';
import * as recipes from '@mage-rl/recipes';
import { describe, expect, it, vi } from 'vitest';
import { createTrainer } from './trainer';

// Counts how often the trainer resolves a config (once per run) and whether core's loop validates the
// options again (never: it gets them resolved).
vi.mock('@mage-rl/recipes', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@mage-rl/recipes')>();
  return { ...actual, resolveTrainConfig: vi.fn(actual.resolveTrainConfig) };
});
vi.mock('@mage-rl/core', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@mage-rl/core')>();
  return {
    ...actual,
    iterateTraining: vi.fn(actual.iterateTraining),
    trainingConfigOf: vi.fn(actual.trainingConfigOf),
    resolveTrainingOptions: vi.fn(actual.resolveTrainingOptions),
  };
});

describe('createTrainer', () => {
  const tmp = useTempDir('mage-trainer-');

  it('trains mage-tiny on Tic-Tac-Toe (smoke), resolving the config once, and evaluates the run', async () => {
    const resolveTrainConfig = vi.mocked(recipes.resolveTrainConfig);
    resolveTrainConfig.mockClear();
    const trainer = createTrainer({
      env: 'tictactoe',
      preset: 'smoke',
      runDir: join(tmp.path, 'run'),
      cacheDir: join(tmp.path, 'cache'),
    });
    expect(resolveTrainConfig).toHaveBeenCalledTimes(1);
    // The warm start resolves the configs of its own pretraining layouts; the run's is not resolved again.
    const warm = await trainer.warmStart({ evalEpisodes: 0 });
    expect(warm.cached).toBe(false);
    // A second call finds the cache entry.
    expect(await trainer.warmStart()).toMatchObject({ cached: true, dir: warm.dir, examples: warm.examples });
    resolveTrainConfig.mockClear();
    const iterateTraining = vi.mocked(core.iterateTraining);
    const trainingConfigOf = vi.mocked(core.trainingConfigOf);
    for (const f of [iterateTraining, trainingConfigOf, vi.mocked(core.resolveTrainingOptions)])
      f.mockClear();
    const events: string[] = [];
    const run = await trainer.train({ onEvent: (e) => events.push(e.type) });
    expect(run.warmStart).toBe(warm.dir);
    expect(resolveTrainConfig).not.toHaveBeenCalled();
    // Core's loop gets the options with their defaults filled once and validates nothing again.
    expect(trainingConfigOf).toHaveBeenCalledTimes(1);
    expect(iterateTraining).toHaveBeenCalledTimes(1);
    expect(iterateTraining.mock.calls[0]?.[1]).toBe(trainingConfigOf.mock.results[0]?.value);
    expect(core.resolveTrainingOptions).not.toHaveBeenCalled();
    expect(run.result.iterations).toBe(trainer.config.train.iterations);
    expect(events).toContain('checkpoint-saved');
    expect(events).toContain('runner');
    expect(events).toContain('log');
    // The run plays with its own method and memory, and with none on the same tasks.
    const evaluation = await trainer.evaluate({ opponents: ['random'], episodes: 2 });
    expect([evaluation.method, evaluation.memory]).toEqual(['mage', 'reflection']);
    const { metrics } = evaluation.result;
    expect(metrics.overall.metaEpisodes).toBe(2);
    expect(metrics.overall.perAttempt).toHaveLength(3);
    expect(evaluation.withoutMemory?.benefit.pairs).toBe(2);
  }, 300_000);

  it('takes an env definition as `env` and plays it', async () => {
    const definition = { ...recipes.envDefinition('tictactoe'), id: 'tictactoe-from-code' };
    const trainer = createTrainer({ env: definition, preset: 'smoke', runDir: tmp.path });
    expect(trainer.config.env.id).toBe('tictactoe-from-code');
    const r = await trainer.evaluate({
      policy: 'teacher',
      method: 'reflexion',
      opponents: ['random'],
      episodes: 1,
      attempts: 2,
      baseline: false,
    });
    expect(r.env).toBe('tictactoe-from-code');
    expect(r.result.metrics.overall.metaEpisodes).toBe(1);
    expect(() => createTrainer({ env: { ...definition, id: 'sokoban' } })).toThrow(/built in/);
  });

  it('names the option in its errors', async () => {
    const trainer = createTrainer({ env: 'tictactoe', preset: 'smoke', runDir: tmp.path });
    await expect(trainer.loadPolicy('http://localhost:1/v1')).rejects.toThrow(
      /`policy` with a server URL needs `model`/,
    );
    expect(() => createTrainer({ env: 'tictactoe', method: 'react' })).toThrow(/does not train/);
    const fromModel = createTrainer({ env: 'tictactoe', model: tmp.path });
    await expect(async () => fromModel.warmStart()).rejects.toThrow(/`model` is the start/);
  });

  it('leaves env options without an env to the run it evaluates, and checks them with one', () => {
    const trainer = createTrainer({ overrides: { env: { options: { max: 8 } } } });
    expect(trainer.config.env.options).not.toHaveProperty('max');
    expect(() => createTrainer({ env: 'tictactoe', overrides: { env: { options: { max: 8 } } } })).toThrow(
      /max/,
    );
  });
});
