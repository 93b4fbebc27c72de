import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commandLine, runCaptured, runJson, useTempDir } from '../testing/cli.test-helper';

const example = fileURLToPath(new URL('../../../../examples/custom-env', import.meta.url));

interface TrainJson {
  readonly runDir: string;
  readonly warmStart: string;
  readonly iterations: number;
}

describe('--env-package', () => {
  const tmp = useTempDir('mage-env-package-');

  it('says what is wrong with a missing package, a module without a definition, an unknown env (none added yet)', async () => {
    for (const [argv, message] of [
      [['train', '--env-package', join(tmp.path, 'nope'), '--show-config'], /no such file or directory/],
      [
        ['train', '--env-package', 'no-such-env-package', '--show-config'],
        /cannot find package 'no-such-env-package'/,
      ],
      [
        ['train', '--env-package', join(example, 'src', 'higher-lower.ts'), '--show-config'],
        /exports no 'envDefinition' and no default export.*createHigherLower/,
      ],
      [
        ['eval', '--env', 'higher-lower'],
        /Unknown env 'higher-lower'. Known env ids: tictactoe, kuhn-poker, sokoban/,
      ],
    ] as const) {
      const r = await runCaptured([...argv]);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(message);
    }
  });

  it("adds the package's env: its id is the default --env, and the config records the package", async () => {
    const config = await runJson<{ env: { id: string; options: object; package: string } }>([
      'train',
      '--env-package',
      example,
      '--preset',
      'smoke',
      '--show-config',
    ]);
    // Its defaults' options (one guess per attempt among 1..6) and the package that named them.
    expect(config.env).toEqual({ id: 'higher-lower', options: { maxTurns: 1, max: 6 }, package: example });
    // The printed config reproduces itself through --config (which loads the package it names).
    const file = join(tmp.path, 'config.json');
    await writeFile(file, JSON.stringify(config));
    expect(await runJson(['train', '--config', file, '--show-config'])).toEqual(config);
  });

  it('evaluates the env with its teacher', async () => {
    const r = await runJson<{ env: string; metrics: { overall: { invalidActionRate: { rate: number } } } }>([
      'eval',
      '--env-package',
      example,
      '--method',
      'reflexion',
      '--episodes',
      '4',
    ]);
    expect(r.env).toBe('higher-lower');
    expect(r.metrics.overall.invalidActionRate.rate).toBe(0);
  });
});

describe('mage train --env-package examples/custom-env (slow: warm start of its own + 1 iteration)', () => {
  const tmp = useTempDir('mage-train-custom-');

  it("warm-starts mage-tiny with the package's teacher, trains and evaluates the example env", async () => {
    const runDir = join(tmp.path, 'run');
    // The same run: a first iteration, then a resume to a second one (which takes no --env-package).
    const args = (iterations: number) =>
      commandLine(
        `train --env higher-lower --preset smoke --iterations ${iterations} --run-dir ${runDir} --cache-dir ${join(tmp.path, 'cache')}`,
      );
    const r = await runJson<TrainJson>([...args(1), '--env-package', example]);
    expect(r.iterations).toBe(1);
    expect(r.warmStart).toContain('higher-lower-smoke-');
    const lines = (await readFile(join(runDir, 'metrics.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; iteration: number; tokens?: number });
    const update = lines.find((l) => l.type === 'update');
    expect(update?.iteration).toBe(0);
    expect(update?.tokens).toBeGreaterThan(0);
    expect(lines.some((l) => l.type === 'eval')).toBe(true);

    // Resuming finds the env package in the run's config.json: no --env-package needed.
    const resumed = await runJson<TrainJson>([...args(2), '--resume']);
    expect(resumed.iterations).toBe(2);
  }, 600_000);
});
