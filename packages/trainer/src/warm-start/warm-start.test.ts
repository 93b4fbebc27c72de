import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { useTempDir } from '@mage-rl/core/testing/vitest';
import { addEnvDefinition, envDefinition, RUN_PRESETS } from '@mage-rl/recipes';
import { describe, expect, it } from 'vitest';
import { resolveWarmStart, warmStartDir, warmStartKey } from './warm-start';

describe('warmStartKey', () => {
  const base = { envs: ['tictactoe'], preset: 'laptop', seed: 1 } as const;

  it('is stable and ignores env order and overrides equal to the preset', () => {
    expect(warmStartKey(base)).toBe(warmStartKey({ ...base }));
    expect(warmStartKey({ ...base, envs: ['kuhn-poker', 'tictactoe'] })).toBe(
      warmStartKey({ ...base, envs: ['tictactoe', 'kuhn-poker'] }),
    );
    expect(warmStartKey({ ...base, warmStart: { epochs: RUN_PRESETS.laptop.warmStart.epochs } })).toBe(
      warmStartKey(base),
    );
    expect(warmStartKey({ ...base, envOptions: {} })).toBe(warmStartKey(base));
  });

  it('changes with anything that changes the weights', () => {
    const keys = new Set([
      warmStartKey(base),
      warmStartKey({ ...base, seed: 2 }),
      warmStartKey({ ...base, preset: 'smoke' }),
      warmStartKey({ ...base, envs: ['kuhn-poker'] }),
      warmStartKey({ ...base, warmStart: { mistakes: 0 } }),
      warmStartKey({ ...base, warmStart: { epochs: 1 } }),
      warmStartKey({ ...base, warmStart: { adaptive: 0.5 } }),
      warmStartKey({ ...base, warmStart: { earlyStop: false } }),
      warmStartKey({ ...base, envOptions: { size: 4 } }),
    ]);
    expect(keys.size).toBe(9);
  });

  it('holds the env options: a Tic-Tac-Toe warm start revealing its moves is another warm start', () => {
    const frozen = { ...base, envOptions: { replies: 'board' } } as const;
    const revealing = { ...base, envOptions: { replies: 'board', reveal: 'moves' } } as const;
    expect(warmStartKey(revealing)).not.toBe(warmStartKey(frozen));
    expect(warmStartKey({ ...base, envOptions: { reveal: 'moves' } })).not.toBe(warmStartKey(base));
    expect(warmStartDir('/cache', revealing)).not.toBe(warmStartDir('/cache', frozen));
  });

  it('keys an env option spelled out at its default as left out', () => {
    expect(warmStartKey({ ...base, envOptions: { reveal: 'none', replies: 'turn', size: 3 } })).toBe(
      warmStartKey(base),
    );
    const frozen = { ...base, envOptions: { replies: 'board' } } as const;
    expect(warmStartKey({ ...base, envOptions: { replies: 'board', reveal: 'none' } })).toBe(
      warmStartKey(frozen),
    );
    // Any other value keys apart, one the env would refuse too.
    expect(warmStartKey({ ...base, envOptions: { size: 99 } })).not.toBe(warmStartKey(base));
  });

  it("holds the env's own warm-start defaults; a reader's opening of 0 keys as none", () => {
    const treasure = { envs: ['treasure'], preset: 'laptop', seed: 1 } as const;
    const doors = { ...treasure, envs: ['doors'] } as const;
    // Treasure opens with the reader's probe by default: the same key as asking for it.
    expect(warmStartKey(treasure)).toBe(warmStartKey({ ...treasure, warmStart: { readerOpening: 1 } }));
    expect(warmStartKey({ ...treasure, warmStart: { readerOpening: 0 } })).not.toBe(warmStartKey(treasure));
    // A share of 0 makes the corpus of no share: keys made before the field existed still match.
    expect(warmStartKey({ ...doors, warmStart: { readerOpening: 0 } })).toBe(warmStartKey(doors));
    expect(warmStartKey({ ...doors, warmStart: { readerOpening: 0.5 } })).not.toBe(warmStartKey(doors));
  });

  it("holds the env's recipe values under the preset they are for, and a package env's default options", () => {
    const create = envDefinition('doors').create;
    const recipe = { preset: 'reading', values: { warmStart: { iterations: 8 } } } as const;
    addEnvDefinition(
      { specificationVersion: 'v1', id: 'doors-pkg', description: 'd', create, defaults: {}, recipe },
      { package: 'pkg-a' },
    );
    const reading = { envs: ['doors-pkg'], preset: 'reading', seed: 1 } as const;
    // Under reading the recipe's 8 corpus iterations key like asking for them; under laptop (8) they are laptop's.
    expect(warmStartKey(reading)).toBe(warmStartKey({ ...reading, warmStart: { iterations: 8 } }));
    expect(warmStartKey(reading)).not.toBe(warmStartKey({ ...reading, warmStart: { iterations: 32 } }));
    const options = { env: { options: { doors: 4 } } };
    addEnvDefinition(
      { specificationVersion: 'v1', id: 'doors-opt', description: 'd', create, defaults: options },
      { package: 'pkg-b' },
    );
    const laptop = { envs: ['doors-opt'], preset: 'laptop', seed: 1 } as const;
    const before = warmStartKey(laptop);
    addEnvDefinition(
      { specificationVersion: 'v1', id: 'doors-opt', description: 'd', create, defaults: {} },
      { package: 'pkg-b' },
    );
    // A package that changes its default env options makes another warm start.
    expect(warmStartKey(laptop)).not.toBe(before);
  });

  it("holds a teacher's revision past the first: a changed teacher makes another warm start", () => {
    const create = envDefinition('doors').create;
    const teacher = envDefinition('doors').warmStart!.teacher;
    const define = (revision?: number) =>
      addEnvDefinition(
        {
          specificationVersion: 'v1',
          id: 'doors-rev',
          description: 'd',
          create,
          defaults: {},
          warmStart: { teacher, words: [], ...(revision === undefined ? {} : { revision }) },
        },
        { package: 'pkg-c' },
      );
    const inputs = { envs: ['doors-rev'], preset: 'laptop', seed: 1 } as const;
    define();
    const first = warmStartKey(inputs);
    define(1);
    expect(warmStartKey(inputs)).toBe(first);
    define(2);
    expect(warmStartKey(inputs)).not.toBe(first);
    // Rock-Paper-Scissors' teacher is at revision 2.
    expect(envDefinition('rps').warmStart?.revision).toBe(2);
  });
});

describe('resolveWarmStart', () => {
  const tmp = useTempDir('mage-warm-start-');
  const request = { env: 'tictactoe', preset: 'smoke', seed: 1, cacheDir: 'C' } as const;

  it('names the cache entry as warm starts were always named: a new key would pretrain them all again', () => {
    expect(resolveWarmStart(request).dir).toBe(join('C', 'mage-tiny', 'tictactoe-smoke-a53206149ab0c0b6'));
    const kuhn = { ...request, env: 'kuhn-poker', preset: 'laptop' } as const;
    expect(resolveWarmStart({ ...kuhn, overrides: { env: { options: { mode: 'new-deal' } } } }).dir).toBe(
      join('C', 'mage-tiny', 'kuhn-poker-laptop-d63b77959010de73'),
    );
    const treasure = { ...request, env: 'treasure', preset: 'laptop', seed: 13 } as const;
    expect(resolveWarmStart({ ...treasure, overrides: { warmStart: { readerOpening: 0 } } }).dir).toBe(
      join('C', 'mage-tiny', 'treasure-laptop-8ebcf9aac8c698af'),
    );
    // Values a warm start does not read leave the entry where it was.
    const doors = { ...request, env: 'doors', overrides: { warmStart: { epochs: 3 } } } as const;
    expect(resolveWarmStart({ ...doors, overrides: { ...doors.overrides, ppo: { lr: 1 } } }).dir).toBe(
      join('C', 'mage-tiny', 'doors-smoke-4ea949ab4e3e09f2'),
    );
    expect(resolveWarmStart(request).dir).toBe(
      warmStartDir('C', { envs: ['tictactoe'], preset: 'smoke', seed: 1 }),
    );
    expect(resolveWarmStart({ ...request, model: '/models/m' }).dir).toBe('/models/m');
  });

  it('refuses a model that is not a model directory, naming the option and the path, before anything is built', async () => {
    const missing = join(tmp.path, 'missing');
    await expect(resolveWarmStart({ ...request, model: missing }).check()).rejects.toThrow(
      `\`model\` '${missing}': no such directory`,
    );
    const file = join(tmp.path, 'file');
    await writeFile(file, 'x');
    await expect(
      resolveWarmStart({ ...request, model: file, modelOption: 'spec.model' }).ensure(),
    ).rejects.toMatchObject({ message: expect.stringMatching(/^`spec\.model` '.*file': is a file/) });
    const run = join(tmp.path, 'run');
    await mkdir(join(run, 'checkpoints'), { recursive: true });
    await expect(resolveWarmStart({ ...request, model: run }).check()).rejects.toMatchObject({
      context: { path: 'model', dir: resolve(run) },
      message: expect.stringMatching(
        /is neither a mage-tiny directory .*; it is a run directory \(`mage export/,
      ),
    });
    const model = join(tmp.path, 'model');
    await mkdir(model);
    await writeFile(join(model, 'mage-tiny.json'), '{}');
    await expect(resolveWarmStart({ ...request, model }).check()).resolves.toBeUndefined();
    // A given model is used as it is: nothing is looked up in the cache or pretrained.
    await expect(resolveWarmStart({ ...request, model }).ensure()).resolves.toBe(model);
  });

  it('refuses an env with no warm-start teacher unless a model is given', async () => {
    const openenv = { ...request, env: 'openenv', cacheDir: join(tmp.path, 'cache') } as const;
    await expect(resolveWarmStart(openenv).ensure()).rejects.toThrow(
      /Env 'openenv' has no warm-start teacher.*--model <dir>/,
    );
    const model = join(tmp.path, 'hf');
    await mkdir(model);
    await writeFile(join(model, 'config.json'), '{}');
    await writeFile(join(model, 'model.safetensors'), '');
    await expect(resolveWarmStart({ ...openenv, model }).check()).resolves.toBeUndefined();
  });
});
