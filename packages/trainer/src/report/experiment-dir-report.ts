/**
 * The report of an experiment directory as it stands: results.json and report.md rewritten from every
 * evaluation in it, headed by the calls that wrote it, what success means in its env and the machine, with
 * the env's exact reference values where it has them.
 */

import { join } from 'node:path';
import {
  type CodeV1,
  ConfigError,
  codeKey,
  codeLabel,
  codeNotes,
  type EnvDefinitionV1,
  machineLabel,
  pathExists,
} from '@mage-rl/core';
import {
  envRegistry,
  evaluationSuites,
  RUN_PRESET_IDS,
  type RunPresetId,
  resolveTrainConfig,
  type TrainConfig,
} from '@mage-rl/recipes';
import {
  type ExperimentEvalV1,
  type ExperimentRecordV1,
  readExperimentEvals,
  readExperimentRecord,
} from '../experiment/experiment';
import type { ExperimentSpecV1 } from '../experiment/experiment-spec';
import { type ExperimentReportFiles, writeExperimentReport } from './experiment-report';
import { type HeadroomOf, passAtKHeadroom } from './experiment-results';
import {
  identifiableOpponents,
  populationHeadroom,
  type ReferenceValuesV1,
  referenceValues,
} from './reference-values';

/**
 * The machine of an experiment directory, with the commit of its first call (directories written before
 * the description had SIMD flags and the runtime show what they recorded).
 */
export const machineLine = (saved: Partial<ExperimentRecordV1>): string =>
  `Machine: ${machineLabel(saved.machine)}`;

/**
 * ``at commit `0123456` ``, with ` (dirty)` when tracked files differed from it and ` (stale build)` when
 * the build was older than its sources (`codeNotes`), or why there was none.
 */
function callCode(call: { readonly commit: string | null; readonly code?: CodeV1 }): string {
  const commit = call.code?.commit ?? call.commit;
  if (commit) return `at commit \`${commit.slice(0, 7)}\`${codeNotes(call.code)}`;
  return call.code?.noCommit ? `with ${codeLabel(call.code)}` : 'at commit `unknown`';
}

/** The calls that wrote an experiment directory, with their commits where recorded. */
export function callLines(saved: Partial<ExperimentRecordV1>): string[] {
  const calls = saved.calls ?? [];
  if (calls.length === 0) {
    const commands = saved.commands ?? [];
    return [`Commands: ${commands.map((c) => `\`${c}\``).join('; ') || 'not recorded'}`];
  }
  return [
    'Calls (in order):',
    '',
    ...calls.map((c) => `- \`${c.command ?? 'not recorded'}\` ${callCode(c)}, ${c.started}`),
  ];
}

/** MAGE's config of the experiment: its suites and evaluation settings, which every policy shares. */
function experimentConfig(definition: EnvDefinitionV1, spec: Partial<ExperimentSpecV1>): TrainConfig {
  const preset = String(spec.preset);
  if (!(RUN_PRESET_IDS as readonly string[]).includes(preset)) {
    throw new ConfigError(`preset must be one of ${RUN_PRESET_IDS.join(', ')}, got '${preset}'.`, {
      path: 'preset',
    });
  }
  return resolveTrainConfig(spec.overrides ?? {}, {
    env: definition.id,
    preset: preset as RunPresetId,
    method: 'mage',
  });
}

/** Exact reference values (best response, equilibrium) of the experiment's env, where it has them. */
export function experimentReferences(
  definition: EnvDefinitionV1,
  spec: Partial<ExperimentSpecV1>,
): ReferenceValuesV1 | undefined {
  return referencesOf(definition, experimentConfig(definition, spec));
}

function referencesOf(definition: EnvDefinitionV1, config: TrainConfig): ReferenceValuesV1 | undefined {
  const population = definition.opponents?.populations[config.population.preset];
  return referenceValues(
    definition,
    [...config.eval.inDomain, ...config.eval.outOfDomain],
    { ...config.env.options, ...config.eval.envOptions },
    population ? { attempts: config.eval.attempts, population } : undefined,
  );
}

/**
 * The adaptive headroom of each suite: the adaptation ceiling under the population for the in-domain suite
 * of a game that has one, else the env's perfect reader's pass@k under the suite's options.
 */
function experimentHeadroom(
  definition: EnvDefinitionV1,
  config: TrainConfig,
  references: ReferenceValuesV1 | undefined,
): HeadroomOf {
  const suites = evaluationSuites(config);
  const population = references && populationHeadroom(references);
  return (name) => {
    if (population && name === 'in-domain') return population;
    const suite = suites.find((s) => s.name === name);
    const ceiling = suite && definition.adaptationCeiling?.(suite.envOptions, config.eval.attempts);
    return ceiling ? passAtKHeadroom(ceiling) : undefined;
  };
}

/**
 * The code that wrote the evaluations (`codeLabel` of each record's `code`; `commit unknown` for records
 * written before it was recorded): one line when they agree, else every version with its number of files
 * and a warning, since numbers computed by different code are not comparable.
 */
export function evaluationCodeLines(evals: readonly ExperimentEvalV1[]): string[] {
  if (evals.length === 0) return [];
  const versions = new Map<string, { label: string; files: number }>();
  for (const e of evals) {
    const key = codeKey(e.code);
    const v = versions.get(key) ?? { label: codeLabel(e.code), files: 0 };
    versions.set(key, { ...v, files: v.files + 1 });
  }
  const list = [...versions.values()];
  if (list.length === 1) return [`Code of the evaluations: ${list[0]?.label}.`, ''];
  return [
    `**Code of the evaluations: ${list.length} versions** — ${list.map((v) => `${v.label} (${v.files} file${v.files === 1 ? '' : 's'})`).join('; ')}. Numbers computed by different code are not comparable: delete the older files under \`evals/\` and run the experiment again to redo them at one commit.`,
    '',
  ];
}

/** Every opponent some evaluation of the experiment played. */
const evaluatedOpponents = (evals: readonly ExperimentEvalV1[]): string[] => [
  ...new Set(evals.flatMap((e) => e.suites.flatMap((s) => Object.keys(s.metrics.byOpponent)))),
];

/** Writes results.json and report.md of every evaluation in the experiment directory `outDir`. */
export async function reportExperiment(outDir: string): Promise<ExperimentReportFiles> {
  const path = join(outDir, 'experiment.json');
  if (!(await pathExists(path))) {
    throw new ConfigError(`'${outDir}' is not an experiment directory: it has no experiment.json.`, {
      path: 'outDir',
    });
  }
  const saved = await readExperimentRecord(path);
  // What success means in this env, when its definition is at hand (a package env needs its package loaded).
  const registry = envRegistry();
  const definition = registry.has(saved.spec.env) ? registry.get(saved.spec.env) : undefined;
  const success = definition?.labels?.success;
  const evals = await readExperimentEvals(outDir);
  const config = definition && saved.spec.preset ? experimentConfig(definition, saved.spec) : undefined;
  const references = definition && config ? referencesOf(definition, config) : undefined;
  return writeExperimentReport(
    evals,
    outDir,
    {
      title: `Experiment: ${saved.spec.env}, preset ${saved.spec.preset}`,
      lines: [
        ...callLines(saved),
        '',
        ...evaluationCodeLines(evals),
        ...(success ? [`Success: ${success}.`, ''] : []),
        `${machineLine(saved)}; started ${saved.started}, report written ${new Date().toISOString()}.`,
      ],
    },
    references,
    definition ? identifiableOpponents(definition, evaluatedOpponents(evals)) : [],
    definition && config ? experimentHeadroom(definition, config, references) : undefined,
  );
}
