/** `mage experiment`: methods × seeds (× switch values), one protocol, one results file and report. */

import { join, resolve } from 'node:path';
import { ConfigError } from '@mage-rl/core';
import { defaultPresetOf, envDefinition, MEMORY_KINDS, mergeConfig, useEnvPackage } from '@mage-rl/recipes';
import {
  DEFAULT_CACHE_DIR,
  EVAL_MEMORIES,
  EXPERIMENT_FORMAT,
  type ExperimentSpecV1,
  type GridAxis,
  reportExperiment,
  runExperiment,
} from '@mage-rl/trainer';
import type { Command } from 'commander';
import { printJson } from '../output/format';
import { progressFor } from '../output/progress';
import { iterationLine } from '../output/training-lines';
import type { Io } from '../program/error-boundary';
import { withInterrupt } from '../program/interrupt';
import { oneOf } from './game-options';
import {
  addEnvFlags,
  commaList,
  commandWords,
  ENV_URL_HELP,
  envFlag,
  envUrlOverride,
  presetFlagHelp,
  presetOption,
  seedOf,
  TRAINING_METHOD_IDS,
} from './learning-flags';
import { isConfigPath, OVERRIDE_FLAG_HELP, overridesFromFlags, parseSetValue } from './train-overrides';

/** `advantage.episodeBaseline=row,attempt` → an axis of the grid. */
export function gridAxis(text: string): GridAxis {
  const eq = text.indexOf('=');
  const path = eq > 0 ? text.slice(0, eq).trim() : '';
  const values = eq > 0 ? commaList(text.slice(eq + 1)).map(parseSetValue) : [];
  if (!isConfigPath(path) || values.length === 0) {
    throw new ConfigError(`--grid expects <path>=<v1>,<v2>… (e.g. ppo.lr=1e-4,3e-4), got '${text}'.`, {
      path: '--grid',
    });
  }
  return { path, values };
}

interface ExperimentFlags {
  env: string;
  envPackage?: string;
  envUrl?: string;
  preset?: string;
  methods: string;
  seeds: string;
  out?: string;
  grid?: string[];
  evalMemory: string;
  noteDonor?: string;
  model?: string;
  cacheDir: string;
  config?: string;
  set?: string[];
  reportOnly?: boolean;
  json?: boolean;
}

export function experimentCommand(program: Command, io: Io): void {
  addEnvFlags(
    program
      .command('experiment')
      .description(
        'train and evaluate methods × seeds (× switch values) under one evaluation protocol; resumable; writes results.json and report.md with mean ± 95% interval over seeds',
      ),
  )
    .option('--env-url <url>', ENV_URL_HELP)
    .option('--preset <id>', presetFlagHelp())
    .option(
      '--methods <ids>',
      `comma-separated: warm-start (the untrained warm start, evaluated) | ${TRAINING_METHOD_IDS.join(' | ')}`,
      'warm-start,mage,gigpo,grpo',
    )
    .option(
      '--seeds <list>',
      'comma-separated seeds (one warm start per seed, shared by its methods)',
      '1,2,3',
    )
    .option('--out <dir>', 'experiment directory (default experiments/<env>-<preset>)')
    .option('--grid <path=v1,v2...>', 'switch values crossed with every trained method (repeatable)')
    .option(
      '--eval-memory <kinds>',
      `evaluation protocols: the memory every policy plays its K attempts with (${MEMORY_KINDS.join(' | ')}), 'method' for the one it trained with, or 'foreign-notes' (with reflection listed too): reflection with each earlier attempt's note taken from another meta-episode of the policy's reflection evaluation; a policy evaluated with a memory and with none gets its memory benefit in the report, one evaluated with reflection and foreign-notes its own-minus-foreign notes benefit`,
      'reflection,none,method',
    )
    .option(
      '--note-donor <spec>',
      "with foreign-notes: show the notes this policy ('teacher', a model or run directory) wrote on the same tasks instead of the policy's own other meta-episodes'; they name moves the policy did not make, which its own cannot when it always starts the same way",
    )
    .option(
      '--model <dir>',
      "start every seed from this mage-tiny or Hugging Face checkpoint directory instead of the cached warm start (needed on envs without a warm-start teacher: alfworld, webshop, openenv); 'warm-start' evaluates it untrained",
    )
    .option('--cache-dir <dir>', 'warm-start cache root', DEFAULT_CACHE_DIR)
    .option('--config <file>', OVERRIDE_FLAG_HELP.config)
    .option('--set <path=value...>', OVERRIDE_FLAG_HELP.set)
    .option('--report-only', 'run nothing: rewrite results.json and report.md from the evaluations in --out')
    .option('--json', 'print the results as JSON (no progress output)')
    .action((opts: ExperimentFlags, command: Command) => runExperimentCommand(opts, command, io));
}

/** The grid a `mage experiment` call asks for (its paths as typed: the library checks and records them). */
async function experimentSpecOf(opts: ExperimentFlags, command: Command): Promise<ExperimentSpecV1> {
  const { overrides, definition } = await useEnvPackage(
    opts.envPackage,
    mergeConfig(
      overridesFromFlags({
        ...(opts.config ? { config: opts.config } : {}),
        ...(opts.set ? { set: opts.set } : {}),
      }),
      envUrlOverride(opts.envUrl),
    ),
  );
  const env = envDefinition(envFlag(command, opts.env, definition?.id)).id;
  return {
    format: EXPERIMENT_FORMAT,
    env,
    preset: presetOption(opts.preset).preset ?? defaultPresetOf(env),
    methods: commaList(opts.methods),
    seeds: commaList(opts.seeds).map(seedOf),
    overrides,
    grid: (opts.grid ?? []).map(gridAxis),
    evalMemories: commaList(opts.evalMemory).map((m) => oneOf(m, '--eval-memory', EVAL_MEMORIES)),
    ...(opts.noteDonor === undefined ? {} : { noteDonor: opts.noteDonor }),
    ...(opts.model === undefined ? {} : { model: opts.model }),
  };
}

async function runExperimentCommand(opts: ExperimentFlags, command: Command, io: Io): Promise<void> {
  const spec = await experimentSpecOf(opts, command);
  const outDir = resolve(opts.out ?? join('experiments', `${spec.env}-${spec.preset}`));
  const progress = progressFor(io, opts.json);
  const again = async () =>
    `Finished units are kept; continue with the same command: mage ${commandWords(command).join(' ')}`;
  await withInterrupt(async (signal) => {
    try {
      if (opts.reportOnly) {
        const files = await reportExperiment(outDir);
        if (opts.json) printJson(io, { outDir, ...files });
        else io.stdout(`results: ${files.results}\nreport: ${files.markdown}\n`);
        return;
      }
      const evals = await runExperiment({
        spec,
        outDir,
        cacheDir: opts.cacheDir,
        command: ['mage', ...commandWords(command)].join(' '),
        signal,
        log: (line) => progress.log(line),
        onTrainingEvent: (policy, seed, e) => {
          const line = iterationLine(e);
          if (line && e.type !== 'checkpoint-saved') progress.log(`  ${policy} s${seed} ${line}`);
        },
      });
      const files = await reportExperiment(outDir);
      progress.stop();
      if (opts.json) {
        printJson(io, { outDir, ...files, evaluations: evals.length });
        return;
      }
      io.stdout(`experiment: ${outDir}\nresults: ${files.results}\nreport: ${files.markdown}\n`);
    } finally {
      progress.stop();
    }
  }, again);
}
