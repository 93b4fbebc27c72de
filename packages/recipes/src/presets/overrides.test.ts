import { describe, expect, it } from 'vitest';
import { overrideAt, switchOverrides } from './overrides';
import { resolveTrainConfig } from './resolve-config';

describe('config overrides', () => {
  it('nests a value under its dotted path', () => {
    expect(overrideAt(['ppo', 'lr'], 3e-5)).toEqual({ ppo: { lr: 3e-5 } });
    expect(overrideAt(['seed'], 4)).toEqual({ seed: 4 });
  });

  it('puts each ablation switch in its section and leaves the rest of the config alone', () => {
    const switches = switchOverrides({
      iterations: 2,
      attempts: 4,
      earlyStop: false,
      grouping: 'mixed',
      population: { preset: 'fixed', fixedOpponent: 'random' },
      populationMode: 'partition',
    });
    expect(switches).toEqual({
      rollout: { attempts: 4, earlyStop: false },
      advantage: { grouping: 'mixed' },
      population: { preset: 'fixed', fixedOpponent: 'random', mode: 'partition' },
      train: { iterations: 2 },
    });
    expect(switchOverrides({})).toEqual({});
    const base = resolveTrainConfig({}, { env: 'tictactoe', preset: 'smoke' });
    const switched = resolveTrainConfig(switches, { env: 'tictactoe', preset: 'smoke' });
    expect(switched.rollout).toEqual({ ...base.rollout, attempts: 4, earlyStop: false });
    expect(switched.ppo).toEqual(base.ppo);
  });
});
