/**
 * Fuzzing of every file the CLI reads and every flag it parses: whatever the input, a command ends with
 * exit code 0 or 1 and, on 1, a one-paragraph `mage: …` message — never exit code 2 (an internal error
 * with a stack trace), which is reserved for bugs.
 */

import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runCaptured } from '../testing/cli.test-helper';

const SEED = 20_261_125;

/** Counterexamples can be 100 kB of nesting: fast-check reports them cut short. */
fc.configureGlobal({
  reporter: (details) => {
    if (details.failed)
      throw new Error(
        `fuzz counterexample after ${details.numRuns} runs: ${String(details.errorInstance).slice(0, 2000)}`,
      );
  },
});

/** Text that is often almost-JSON: valid JSON, truncated JSON, special values, deep nesting, noise. */
const jsonish = fc.oneof(
  fc.json(),
  fc.json().map((t) => t.slice(0, Math.max(0, t.length - 1))),
  fc.string(),
  fc.constantFrom(
    '',
    'null',
    '[]',
    '{}',
    '"text"',
    '1e400',
    `${'['.repeat(5000)}${']'.repeat(5000)}`,
    `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`,
    '{"format":"mage-rl/run-config@1"}',
    '{"format":"mage-rl/run-config@1","extra":null}',
    '{"format":"mage-rl/run-config@1","extra":{"warmStartDir":"/nonexistent","env":{"package":7}}}',
    '{"format":"mage-rl/mage-tiny@1","config":{"vocabSize":-1},"warmStart":{}}',
    '{"format":"mage-rl/mage-tiny@1","config":{},"warmStart":null}',
    '{"iteration":0,"dir":"iter-000000"}',
    '{"iteration":1,"dir":"../../etc"}',
    '{"format":"mage-rl/training-checkpoint@1","iteration":0,"nextIteration":1,"seed":1,"learnerId":"x","metricsLines":0,"memory":null}',
    '{"extra":{"method":null,"env":7}}',
    '{"spec":{"env":"tictactoe","preset":"smoke","methods":[],"seeds":[],"grid":[],"evalMemories":[]}}',
    '{"type":"eval","iteration":0}\n{"type":"update"',
  ),
);

/** Values a user might type for any flag. */
const flagValue = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('', '-1', '0', '1', '1e9', '1e7', 'NaN', '0x10', '2.5', '99999999999', 'null', 'true'),
  fc.constantFrom('mage', 'grpo', 'reflexion', 'fixed:', 'fixed:minimax', 'mcts-0', 'balanced', 'global'),
);

const SET_PATHS = [
  'seed',
  'method',
  'env.id',
  'env.options',
  'rollout.groups',
  'rollout.groupSize',
  'rollout.maxTokens.play',
  'rollout.seats',
  'train.iterations',
  'eval.episodes',
  'eval.inDomain',
  'ppo.lr',
  'ppo.dualClip',
  'advantage.metaReward',
  'warmStart.batchRows',
  'population.fixedOpponent',
  'unknown.key',
];

const setFlag = fc.tuple(
  fc.oneof(fc.constantFrom(...SET_PATHS), fc.string({ maxLength: 8 })),
  flagValue,
  jsonish,
);

const TRAIN_FLAGS = [
  '--iterations',
  '--attempts',
  '--memory',
  '--meta-reward',
  '--estimator',
  '--grouping',
  '--anchor-scope',
  '--population',
  '--population-mode',
  '--method',
  '--preset',
  '--seed',
  '--env',
];

/** The outcome every fuzzed command must have. */
function expectHandled(r: { code: number; err: string }, argv: readonly string[]): void {
  const where = `mage ${argv.join(' ')}\n${r.err}`;
  expect([0, 1], where).toContain(r.code);
  expect(r.err, where).not.toMatch(/internal error|\n\s+at /);
  if (r.code === 1) expect(r.err, where).toMatch(/^(mage: |error: )/m);
}

const tempDir = () => mkdtemp(join(tmpdir(), 'mage-fuzz-'));

describe('fuzz: flag parsers', () => {
  it('train --show-config with any flag values and --set assignments', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom(...TRAIN_FLAGS), flagValue), { maxLength: 4 }),
        fc.array(setFlag, { maxLength: 3 }),
        async (flags, sets) => {
          const argv = [
            'train',
            '--preset',
            'smoke',
            ...flags.flat(),
            ...sets.flatMap(([path, value, json]) => ['--set', `${path}=${path.length % 2 ? value : json}`]),
            '--show-config',
          ];
          expectHandled(await runCaptured(argv), argv);
        },
      ),
      { numRuns: 150, seed: SEED },
    );
  }, 120_000);

  it('eval, experiment and report flags that need no training', async () => {
    const dir = await tempDir();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          ['eval', '--episodes'],
          ['eval', '--attempts'],
          ['eval', '--opponents'],
          ['eval', '--policy'],
          ['experiment', '--methods'],
          ['experiment', '--seeds'],
          ['experiment', '--grid'],
          ['experiment', '--eval-memory'],
          ['report', '--out'],
        ),
        flagValue,
        async ([command, flag], value) => {
          // Each flag with a bad value must be refused before any work; a good one leads to a run that
          // needs missing inputs (an empty --out, no run), which is refused too.
          const argv =
            command === 'report'
              ? [command, dir, flag as string, join(dir, value || 'x')]
              : command === 'experiment'
                ? [
                    command as string,
                    '--preset',
                    'smoke',
                    '--report-only',
                    '--out',
                    dir,
                    flag as string,
                    value,
                  ]
                : [
                    command as string,
                    '--preset',
                    'smoke',
                    '--policy',
                    join(dir, 'none'),
                    flag as string,
                    value,
                  ];
          expectHandled(await runCaptured(argv), argv);
        },
      ),
      { numRuns: 120, seed: SEED },
    );
  }, 120_000);
});

describe('fuzz: file readers', () => {
  it('--config files', async () => {
    const dir = await tempDir();
    await fc.assert(
      fc.asyncProperty(jsonish, async (text) => {
        const file = join(dir, 'config.json');
        await writeFile(file, text);
        const argv = ['train', '--preset', 'smoke', '--config', file, '--show-config'];
        expectHandled(await runCaptured(argv), argv);
      }),
      { numRuns: 120, seed: SEED },
    );
  }, 120_000);

  it('run directories: config.json, metrics.jsonl, latest.json and state.json (report, eval, train --resume)', async () => {
    await fc.assert(
      fc.asyncProperty(jsonish, jsonish, jsonish, jsonish, async (config, metrics, latest, state) => {
        const dir = await tempDir();
        await mkdir(join(dir, 'checkpoints', 'iter-000000'), { recursive: true });
        await writeFile(join(dir, 'config.json'), config);
        await writeFile(join(dir, 'metrics.jsonl'), metrics);
        await writeFile(join(dir, 'checkpoints', 'latest.json'), latest);
        await writeFile(join(dir, 'checkpoints', 'iter-000000', 'state.json'), state);
        for (const argv of [
          ['report', dir],
          ['eval', '--preset', 'smoke', '--policy', dir, '--episodes', '1'],
          ['train', '--preset', 'smoke', '--run-dir', dir, '--resume', '--show-config'],
        ]) {
          expectHandled(await runCaptured(argv), argv);
        }
      }),
      { numRuns: 60, seed: SEED },
    );
  }, 240_000);

  it('model directories (mage-tiny.json, tokenizer files) and experiment.json', async () => {
    await fc.assert(
      fc.asyncProperty(jsonish, jsonish, fc.boolean(), async (manifest, tokenizer, withConfig) => {
        const dir = await tempDir();
        await writeFile(join(dir, 'mage-tiny.json'), manifest);
        await writeFile(join(dir, 'tokenizer.json'), tokenizer);
        if (withConfig) await writeFile(join(dir, 'tokenizer_config.json'), tokenizer);
        await writeFile(join(dir, 'experiment.json'), manifest);
        for (const argv of [
          ['eval', '--preset', 'smoke', '--policy', dir, '--episodes', '1'],
          ['experiment', '--preset', 'smoke', '--report-only', '--out', dir],
        ]) {
          expectHandled(await runCaptured(argv), argv);
        }
      }),
      { numRuns: 60, seed: SEED },
    );
  }, 240_000);
});
