/** `mage experiment`: methods × seeds (× switch values), one protocol, one results file and report. */

import { join, resolve } from 'node:path';
import { ConfigError, type EnvDefinitionV1, pathExists } from '@mage-rl/core';
import {
  envDefinition,
  envRegistry,
  MEMORY_KINDS,
  RUN_PRESET_IDS,
  resolveTrainConfig,
  useEnvPackage,
} from '@mage-rl/recipes';
import {
  DEFAULT_CACHE_DIR,
  EXPERIMENT_FORMAT,
  type ExperimentRecordV1,
  type ExperimentSpecV1,
  type GridAxis,
  readExperimentEvals,
  readExperimentRecord,
  referenceValues,
  runExperiment,
  writeExperimentReport,
} from '@mage-rl/trainer';
import type { Command } from 'commander';
import { printJson } from '../output/format';
import { progressFor } from '../output/progress';
import { iterationLine } from '../output/training-lines';
import type { Io } from '../program/error-boundary';
import { withInterrupt } from '../program/interrupt';
import { oneOf } from './game-options';
import { addEnvFlags, commaList, commandWords, envFlag, seedOf, TRAINING_METHOD_IDS } from './learning-flags';
import { OVERRIDE_FLAG_HELP, overridesFromFlags } from './train-overrides';

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `advantage.episodeBaseline=row,attempt` → an axis of the grid. */
export function gridAxis(text: string): GridAxis {
  const eq = text.indexOf('=');
  const path = eq > 0 ? text.slice(0, eq).trim() : '';
  const values = eq > 0 ? commaList(text.slice(eq + 1)).map(parseValue) : [];
  if (!/^[A-Za-z][\w-]*(\.[A-Za-z][\w-]*)*$/.test(path) || values.length === 0) {
    throw new ConfigError(`--grid expects <path>=<v1>,<v2>… (e.g. ppo.lr=1e-4,3e-4), got '${text}'.`, {
      path: '--grid',
    });
  }
  return { path, values };
}

/** The calls that wrote an experiment directory, with their commits where recorded. */
function callLines(saved: Partial<ExperimentRecordV1>): string[] {
  const calls = saved.calls ?? [];
  if (calls.length === 0) {
    const commands = saved.commands ?? [];
    return [`Commands: ${commands.map((c) => `\`${c}\``).join('; ') || 'not recorded'}`];
  }
  return [
    'Calls (in order):',
    '',
    ...calls.map(
      (c) =>
        `- \`${c.command ?? 'not recorded'}\` at commit \`${c.commit?.slice(0, 7) ?? 'unknown'}\`, ${c.started}`,
    ),
  ];
}

/** Exact reference values (best response, equilibrium) of the experiment's env, where it has them. */
function experimentReferences(definition: EnvDefinitionV1, spec: Partial<ExperimentSpecV1>) {
  const config = resolveTrainConfig(spec.overrides ?? {}, {
    env: definition.id,
    preset: oneOf(String(spec.preset), 'preset', RUN_PRESET_IDS),
    method: 'mage',
  });
  const population = definition.opponents?.populations[config.population.preset];
  return referenceValues(
    definition,
    [...config.eval.inDomain, ...config.eval.outOfDomain],
    { ...config.env.options, ...config.eval.envOptions },
    population ? { attempts: config.eval.attempts, population } : undefined,
  );
}

/** results.json and report.md of every evaluation in an experiment directory. */
async function experimentReport(outDir: string) {
  const path = join(outDir, 'experiment.json');
  if (!(await pathExists(path))) {
    throw new ConfigError(`'${outDir}' is not an experiment directory: it has no experiment.json.`, {
      path: '--out',
    });
  }
  const saved = await readExperimentRecord(path);
  // What success means in this env, when its definition is at hand (a package env needs --env-package).
  const registry = envRegistry();
  const definition = registry.has(saved.spec.env) ? registry.get(saved.spec.env) : undefined;
  const success = definition?.labels?.success;
  return writeExperimentReport(
    await readExperimentEvals(outDir),
    outDir,
    {
      title: `Experiment: ${saved.spec.env}, preset ${saved.spec.preset}`,
      lines: [
        ...callLines(saved),
        '',
        ...(success ? [`Success: ${success}.`, ''] : []),
        `Machine: ${Object.entries(saved.machine ?? {})
          .map(([k, v]) => `${k} ${String(v)}`)
          .join(', ')}; started ${saved.started}, report written ${new Date().toISOString()}.`,
      ],
    },
    definition && saved.spec.preset ? experimentReferences(definition, saved.spec) : undefined,
  );
}

interface ExperimentFlags {
  env: string;
  envPackage?: string;
  preset: string;
  methods: string;
  seeds: string;
  out?: string;
  grid?: string[];
  evalMemory: string;
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
    'warm-start',
  )
    .option('--preset <id>', `run preset: ${RUN_PRESET_IDS.join(' | ')}`, 'laptop')
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
      `evaluation protocols: the memory every policy plays its K attempts with (${MEMORY_KINDS.join(' | ')}), or 'method' for the one it trained with; a policy evaluated with a memory and with none gets its memory benefit in the report`,
      'reflection,none,method',
    )
    .option('--cache-dir <dir>', 'warm-start cache root', DEFAULT_CACHE_DIR)
    .option('--config <file>', OVERRIDE_FLAG_HELP.config)
    .option('--set <path=value...>', OVERRIDE_FLAG_HELP.set)
    .option('--report-only', 'run nothing: rewrite results.json and report.md from the evaluations in --out')
    .option('--json', 'print the results as JSON (no progress output)')
    .action((opts: ExperimentFlags, command: Command) => runExperimentCommand(opts, command, io));
}

/** The grid a `mage experiment` call asks for. */
async function experimentSpecOf(opts: ExperimentFlags, command: Command): Promise<ExperimentSpecV1> {
  const { overrides, definition } = await useEnvPackage(
    opts.envPackage,
    overridesFromFlags({
      ...(opts.config ? { config: opts.config } : {}),
      ...(opts.set ? { set: opts.set } : {}),
    }),
  );
  return {
    format: EXPERIMENT_FORMAT,
    env: envDefinition(envFlag(command, opts.env, definition?.id)).id,
    preset: oneOf(opts.preset, '--preset', RUN_PRESET_IDS),
    methods: commaList(opts.methods),
    seeds: commaList(opts.seeds).map(seedOf),
    overrides,
    grid: (opts.grid ?? []).map(gridAxis),
    evalMemories: commaList(opts.evalMemory).map((m) =>
      oneOf(m, '--eval-memory', [...MEMORY_KINDS, 'method']),
    ),
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
        const files = await experimentReport(outDir);
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
      const files = await experimentReport(outDir);
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
