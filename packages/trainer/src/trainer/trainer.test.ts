import { join } from 'node:path';
import { useTempDir } from '@mage-rl/core/testing/vitest';
import * as recipes from '@mage-rl/recipes';
import { describe, expect, it, vi } from 'vitest';
import { createTrainer } from './trainer';

// Counts how often the trainer resolves a config: once per run.
vi.mock('@mage-rl/recipes', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@mage-rl/recipes')>();
  return { ...actual, resolveTrainConfig: vi.fn(actual.resolveTrainConfig) };
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
    await trainer.warmStart();
    resolveTrainConfig.mockClear();
    const events: string[] = [];
    const run = await trainer.train({ onEvent: (e) => events.push(e.type) });
    expect(resolveTrainConfig).not.toHaveBeenCalled();
    expect(run.result.iterations).toBe(trainer.config.train.iterations);
    expect(events).toContain('checkpoint-saved');
    const { metrics } = await trainer.evaluate({ opponents: ['random'], episodes: 2 });
    expect(metrics.overall.metaEpisodes).toBe(2);
    expect(metrics.overall.perAttempt).toHaveLength(3);
  }, 300_000);

  it('names the option in its errors', async () => {
    const trainer = createTrainer({ env: 'tictactoe', preset: 'smoke', runDir: tmp.path });
    await expect(trainer.loadPolicy('http://localhost:1/v1')).rejects.toThrow(
      /`policy` with a server URL needs `model`/,
    );
    expect(() => createTrainer({ env: 'tictactoe', method: 'react' })).toThrow(/does not train/);
  });
});
