import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCaptured, useTempDir } from '../testing/cli.test-helper';
import { overridesFromFlags, setOverride } from './train-overrides';

interface ShownConfig {
  readonly method: string;
  readonly rollout: { attempts: number; memory: string; earlyStop: boolean; groups: number };
  readonly advantage: { metaReward: string; grouping: string; anchorScope: string; estimator: string };
  readonly population: { preset: string; fixedOpponent: string | null; mode: string };
  readonly ppo: { lr: number };
  readonly train: { iterations: number };
}

const show = async (...flags: string[]) => {
  const r = await runCaptured(['train', '--preset', 'smoke', '--show-config', ...flags]);
  return { ...r, config: r.code === 0 ? (JSON.parse(r.out) as ShownConfig) : null };
};

describe('mage train ablation switches', () => {
  const tmp = useTempDir('mage-overrides-');

  it('leave the method preset alone without flags', async () => {
    const { config } = await show('--method', 'mage');
    expect(config?.advantage).toMatchObject({ metaReward: 'differential', grouping: 'per-opponent' });
    expect(config?.rollout).toMatchObject({ attempts: 3, memory: 'reflection', earlyStop: true });
    expect(config?.population).toMatchObject({ preset: 'balanced', mode: 'sampled' });
  });

  it('turn every ablation switch into the resolved config', async () => {
    const { config } = await show(
      ...['--method', 'mage', '--meta-reward', 'cumulative', '--grouping', 'mixed'],
      ...['--anchor-scope', 'local', '--memory', 'reflection+history', '--attempts', '4'],
      ...['--population', 'fixed:mcts-100', '--population-mode', 'partition', '--no-early-stop'],
      ...['--estimator', 'grpo', '--iterations', '7'],
    );
    expect(config?.advantage).toMatchObject({
      metaReward: 'cumulative',
      grouping: 'mixed',
      anchorScope: 'local',
      estimator: 'grpo',
    });
    expect(config?.rollout).toMatchObject({ attempts: 4, memory: 'reflection+history', earlyStop: false });
    expect(config?.population).toEqual({ preset: 'fixed', fixedOpponent: 'mcts-100', mode: 'partition' });
    expect(config?.train.iterations).toBe(7);
  });

  it('layer --config under the named flags and --set over both', async () => {
    const file = join(tmp.path, 'partial.json');
    await writeFile(file, JSON.stringify({ ppo: { lr: 0.002 }, rollout: { groups: 5, attempts: 2 } }));
    const { config } = await show('--config', file, '--attempts', '6', '--set', 'rollout.groups=3');
    expect(config?.ppo.lr).toBe(0.002);
    expect(config?.rollout.attempts).toBe(6);
    expect(config?.rollout.groups).toBe(3);
  });

  it('name the flag or the config path and the allowed values on bad input', async () => {
    const bad = await show('--meta-reward', 'sideways');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('--meta-reward must be one of differential, cumulative, single');
    const badSet = await show('--set', 'ppo.clip=7');
    expect(badSet.code).toBe(1);
    expect(badSet.err).toContain('ppo.clip');
    const unknownOpponent = await show('--population', 'fixed:nobody');
    expect(unknownOpponent.code).toBe(1);
    expect(unknownOpponent.err).toContain('mcts-100');
    const noFile = await show('--config', join(tmp.path, 'missing.json'));
    expect(noFile.err).toMatch(/missing\.json' \(--config file\) does not exist; pass a JSON object/);
  });

  it('reproduce a run from its --show-config output alone, for every env and training method', async () => {
    for (const env of ['tictactoe', 'kuhn-poker', 'sokoban']) {
      for (const method of ['grpo', 'gigpo', 'lamer', 'mage']) {
        const first = await runCaptured([
          'train',
          '--preset',
          'smoke',
          '--env',
          env,
          '--method',
          method,
          '--seed',
          '7',
          '--show-config',
        ]);
        expect(first.code).toBe(0);
        const file = join(tmp.path, `${env}-${method}.json`);
        await writeFile(file, first.out);
        const again = await runCaptured(['train', '--config', file, '--show-config']);
        expect(again.err).toBe('');
        expect(JSON.parse(again.out)).toEqual(JSON.parse(first.out));
      }
    }
  });

  it('take identity keys from --set when the flag is not typed, refuse them when it disagrees', async () => {
    const seed = await runCaptured(['train', '--preset', 'smoke', '--set', 'seed=5', '--show-config']);
    expect((JSON.parse(seed.out) as { seed: number }).seed).toBe(5);
    const method = await show('--set', 'method=gigpo');
    expect(method.config?.method).toBe('gigpo');
    const clash = await show('--method', 'mage', '--set', 'method=gigpo');
    expect(clash.code).toBe(1);
    expect(clash.err).toMatch(/method is "gigpo" in the config values but "mage" was asked for/);
    const env = await show('--env', 'kuhn-poker', '--set', 'env.id=sokoban');
    expect(env.code).toBe(1);
    expect(env.err).toMatch(/--env/);
  });

  it('parse --set values as JSON where they are JSON, as strings otherwise', () => {
    expect(setOverride('a.b=3')).toEqual({ a: { b: 3 } });
    expect(() => setOverride('size', '--option')).toThrow(/--option expects <path>=<value>/);
    expect(() => overridesFromFlags({ set: ['ppo.lr='] })).toThrow(/^--set ppo\.lr= has no value/);
    expect(setOverride('a=true')).toEqual({ a: true });
    expect(setOverride('population.preset=patterns')).toEqual({ population: { preset: 'patterns' } });
    expect(() => setOverride('=3')).toThrow(/--set expects/);
    expect(overridesFromFlags({})).toEqual({});
  });

  it('refuse sizes that would exhaust memory, with the limit', async () => {
    for (const [set, message] of [
      ['rollout.groups=1e9', 'rollout.groups must be at most 1024, got 1000000000'],
      ['train.iterations=1e7', 'train.iterations must be at most 100000, got 10000000'],
      ['rollout.maxTokens.play=1e6', 'rollout.maxTokens.play must be at most 8192'],
      ['eval.episodes=1e9', 'eval.episodes must be at most 100000'],
    ] as const) {
      const r = await show('--set', set);
      expect(r.code).toBe(1);
      expect(r.err).toContain(message);
    }
    const slots = await show('--set', 'rollout.groups=1024', '--set', 'rollout.groupSize=256');
    expect(slots.err).toMatch(/rollout\.groups × rollout\.groupSize must be at most 16384/);
    const flag = await show('--iterations', '10000000');
    expect(flag.err).toContain('--iterations must be an integer in 1..100000');
  });

  it('refuse a 20,000-deep --config and a deep --set path with a message, not a RangeError', async () => {
    const file = join(tmp.path, 'deep.json');
    await writeFile(file, `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`);
    const deep = await show('--config', file);
    expect(deep.code).toBe(1);
    expect(deep.err).toMatch(/deep\.json' \(--config file\) nests deeper than 64 levels/);
    const path = await show('--set', `${Array.from({ length: 20 }, () => 'a').join('.')}=1`);
    expect(path.code).toBe(1);
    expect(path.err).toMatch(/the path has 20 keys/);
  });

  it('refuse --set with an empty value (seed=, method=, env.id=) instead of guessing', async () => {
    for (const key of ['seed', 'method', 'env.id', 'ppo.lr']) {
      const r = await show('--set', `${key}=`);
      expect(r.code).toBe(1);
      expect(r.err).toContain(`--set ${key}= has no value`);
    }
  });
});
