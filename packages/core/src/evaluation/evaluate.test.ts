import { ConfigError } from '@mage-rl/spec';
import { describe, expect, it } from 'vitest';
import { simpleMemory } from '../runner/simple-memory.test-helper';
import { createNimEnv, nimGame, nimOpponents, randomLegalOpponent, scriptedPolicy } from '../testing';
import { evaluate } from './evaluate';

const env = createNimEnv();
const makeOpponent = nimOpponents(randomLegalOpponent(nimGame));
const takeOne = () =>
  scriptedPolicy((r) => (r.phase === 'reflect' ? '<remark>n</remark>' : '<action>1</action>'));

describe('evaluate', () => {
  it('runs N meta-episodes per opponent and returns overall and per-opponent metrics', async () => {
    const { metrics, batch } = await evaluate({
      env,
      policy: takeOne(),
      memory: simpleMemory(),
      opponents: ['first-legal', 'random'],
      makeOpponent,
      episodes: 6,
      seed: 3,
    });
    expect(batch.slots).toHaveLength(12);
    expect(new Set(batch.groups.map((g) => g.task.seed)).size).toBe(12);
    expect(metrics.byOpponent['first-legal']?.metaEpisodes).toBe(6);
    expect(metrics.byOpponent.random?.metaEpisodes).toBe(6);
    expect(metrics.overall.perAttempt).toHaveLength(3);
    // Take-1 against take-1 is decided by the pile's parity: the same result every attempt.
    const fl = metrics.byOpponent['first-legal'];
    expect(fl?.perAttempt[0]?.passAtK.rate).toBe(fl?.perAttempt[2]?.passAtK.rate);
  });

  it('gives the same slots whether run at once or in waves', async () => {
    const opts = {
      env,
      policy: takeOne(),
      opponents: ['random'],
      makeOpponent,
      episodes: 5,
      // Mixed seats: every wave must give each global group the seat it has in the unwaved run (with
      // seats drawn per wave from the wave's own group count, seed 1 gets different seats in waves).
      seed: 1,
      seats: { mixed: 0.5 },
    } as const;
    const once = await evaluate({ ...opts, memory: simpleMemory() });
    const memory = simpleMemory();
    const waves = await evaluate({ ...opts, memory, waveSize: 2 });
    expect(waves.batch.slots).toEqual(once.batch.slots);
    expect(waves.batch.groups).toEqual(once.batch.groups);
    expect(new Set(once.batch.groups.map((g) => g.task.seat))).toEqual(new Set(['first', 'second']));
    expect(waves.metrics).toEqual(once.metrics);
    expect(memory.commits).toBe(3);
  });

  it('rejects a missing opponent list', async () => {
    await expect(
      evaluate({ env, policy: takeOne(), memory: simpleMemory(), makeOpponent }),
    ).rejects.toBeInstanceOf(ConfigError);
  });
});
