/**
 * `mage experiment`: a grid of methods × seeds (× switch values) on one environment and run preset. Every
 * seed has one warm start shared by all its methods; trained runs skip their in-loop evaluation and every
 * policy (the warm start included) is then evaluated under the same protocols: the same tasks (those of
 * the training loop's evaluation), opponents, sampling and K, with each listed memory. Each unit of work
 * writes its own file atomically, so a killed experiment continues where it stopped. What a call asks for,
 * and the checks that refuse it before anything runs, are `experiment-spec.ts`. See `architecture/cli.md`.
 */

import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type CodeV1,
  ConfigError,
  latestCheckpoint,
  type MachineV1,
  type MemoryV1,
  type MetaEpisodeMetricsV1,
  pathExists,
  readJsonChecked,
  storedPath,
  type TrainingEvent,
  writeJsonAtomic,
} from '@mage-rl/core';
import { loadModel } from '@mage-rl/learner';
import {
  type ConfigEvaluationV1,
  type EvaluationSuiteV1,
  evaluateConfig,
  MEMORY_KINDS,
  type MemoryKind,
  type TrainConfig,
} from '@mage-rl/recipes';
import { z } from 'zod';
import type { ForeignNoteSwapsV1 } from '../evaluate/foreign-notes';
import { trainerCode, trainerMachine } from '../run-record/code';
import { memoryLimitsOfConfig } from '../train/memory-limits';
import { trainPipeline } from '../train/train';
import { resolveWarmStart } from '../warm-start/warm-start';
import { donorEvaluation, foreignNotesOf, swapsOf } from './experiment-notes';
import {
  checkExperimentInputs,
  type EvalProtocol,
  type ExperimentPolicy,
  type ExperimentSpecV1,
  FOREIGN_NOTES,
  fileLabel,
  policyConfig,
  policyMemories,
  policyOverrides,
  WARM_START,
  withAbsolutePaths,
} from './experiment-spec';

export const EXPERIMENT_EVAL_FORMAT = 'mage-rl/experiment-eval@1';

/** One evaluation of one policy at one seed under one protocol (`evals/<label>-s<seed>.<memory>.json`). */
export interface ExperimentEvalV1 {
  readonly format: typeof EXPERIMENT_EVAL_FORMAT;
  readonly label: string;
  readonly method: string;
  readonly variant: Readonly<Record<string, unknown>>;
  readonly seed: number;
  /** The protocol: a memory kind, or `foreign-notes` (the reflection memory showing foreign notes). */
  readonly memory: EvalProtocol;
  /** The checkpoint or warm-start directory evaluated (relative to the working directory when inside it). */
  readonly policy: string;
  readonly suites: readonly {
    readonly name: string;
    readonly domain: 'in' | 'out';
    readonly metrics: MetaEpisodeMetricsV1;
    /** `foreign-notes` only: how many swapped notes read as the replaced ones (`foreignNoteSwaps`). */
    readonly swaps?: ForeignNoteSwapsV1 | undefined;
  }[];
  /** `foreign-notes` with a note donor: the donor whose notes were shown. */
  readonly noteDonor?: string | undefined;
  /** The code that evaluated (`trainerCode`); absent from records written before it was recorded. */
  readonly code?: CodeV1;
  /** The machine that evaluated; absent from records written before it was recorded. */
  readonly machine?: MachineV1;
  /** Wall time of the training run (0 for the warm start) and of this evaluation. */
  readonly trainSeconds: number;
  readonly evalSeconds: number;
}

export interface ExperimentOptions {
  readonly spec: ExperimentSpecV1;
  readonly outDir: string;
  readonly cacheDir?: string;
  /**
   * The command line, recorded in `experiment.json` with the code (`trainerCode`: the commit of the checkout
   * the trainer runs from), which every evaluation record names too.
   */
  readonly command?: string;
  readonly signal?: AbortSignal;
  readonly log?: (line: string) => void;
  readonly onTrainingEvent?: (policy: string, seed: number, event: TrainingEvent) => void;
}

/**
 * The machine of an experiment directory: core's `describeMachine` with the learner's runtime, and the
 * code's commit. Directories written before the description had `simd` and `runtime` lack them.
 */
function machine(commit: string | null): Record<string, unknown> {
  return { ...trainerMachine(), commit };
}

/**
 * What must stay the same for the runs of one experiment directory to be comparable. Switch values are
 * part of each policy's label, so calls with other grids may add policies.
 */
const protocolOf = (spec: ExperimentSpecV1) => ({
  env: spec.env,
  preset: spec.preset,
  overrides: spec.overrides,
  noteDonor: spec.noteDonor,
  model: spec.model,
});

/**
 * Writes `experiment.json`, or checks that a later call keeps the protocol (env, preset, config values):
 * methods, seeds, grids and evaluation memories may be added, and the record lists every command.
 */
async function recordSpec(options: ExperimentOptions): Promise<void> {
  await mkdir(options.outDir, { recursive: true });
  const path = join(options.outDir, 'experiment.json');
  const spec = JSON.parse(JSON.stringify(options.spec)) as ExperimentSpecV1;
  const command = options.command ?? null;
  const code = trainerCode();
  const current = machine(code.commit);
  const call: ExperimentCallV1 = { command, commit: code.commit, code, started: new Date().toISOString() };
  if (await pathExists(path)) {
    const saved = await readExperimentRecord(path);
    if (JSON.stringify(protocolOf(saved.spec)) !== JSON.stringify(protocolOf(spec))) {
      throw new ConfigError(
        `'${options.outDir}' holds another experiment (its experiment.json has a different env, preset, config values, note donor or model); use another \`outDir\`, or the same \`spec.env\`, \`spec.preset\`, \`spec.overrides\`, \`spec.noteDonor\` and \`spec.model\` (\`spec.methods\`, \`spec.seeds\`, \`spec.grid\` and \`spec.evalMemories\` may be added).`,
        { path: 'outDir', context: { saved: saved.spec, asked: spec } },
      );
    }
    const union = <T>(a: readonly T[], b: readonly T[]) => [...new Set([...a, ...b])];
    await writeJsonAtomic(path, {
      ...saved,
      spec: {
        ...saved.spec,
        methods: union(saved.spec.methods, spec.methods),
        seeds: union(saved.spec.seeds, spec.seeds),
        evalMemories: union(saved.spec.evalMemories, spec.evalMemories),
        grid: [...new Map([...saved.spec.grid, ...spec.grid].map((a) => [JSON.stringify(a), a])).values()],
      },
      commands: union(saved.commands ?? [], command === null ? [] : [command]),
      calls: [...(saved.calls ?? []), call],
    } satisfies ExperimentRecordV1);
    return;
  }
  await writeJsonAtomic(path, {
    spec,
    commands: command === null ? [] : [command],
    calls: [call],
    machine: current,
    started: call.started,
  } satisfies ExperimentRecordV1);
}

/** One `mage experiment` call on a directory: what was typed, at which commit, when. */
export interface ExperimentCallV1 {
  readonly command: string | null;
  /** The code's commit (`code.commit`); null if unknown. */
  readonly commit: string | null;
  /** The code the call ran; absent from calls recorded before it was. */
  readonly code?: CodeV1;
  readonly started: string;
}

/** `experiment.json`: everything asked of the directory so far. */
const recordSchema = z
  .object({
    spec: z
      .object({
        env: z.string(),
        preset: z.string(),
        methods: z.array(z.string()),
        seeds: z.array(z.number()),
        grid: z.array(z.unknown()),
        evalMemories: z.array(z.string()),
      })
      .loose(),
    commands: z.array(z.string()).optional(),
  })
  .loose();

/** The experiment.json of `outDir`, checked to be an experiment record. */
export async function readExperimentRecord(path: string): Promise<ExperimentRecordV1> {
  const record = await readJsonChecked(path, {
    what: 'experiment record',
    fix: 'it is not the record of a mage experiment (or it is damaged): use another `outDir`, or restore the file',
    schema: recordSchema,
  });
  return record as z.output<typeof recordSchema> & ExperimentRecordV1;
}

export interface ExperimentRecordV1 {
  readonly spec: ExperimentSpecV1;
  readonly commands: readonly string[];
  /** Every call in order (directories written before this field list only `commands`). */
  readonly calls?: readonly ExperimentCallV1[];
  readonly machine: Readonly<Record<string, unknown>>;
  readonly started: string;
}

/** An `evals/*.json` file: the record's fields checked, the metrics as the evaluation wrote them. */
const evalSchema = z.looseObject({
  format: z.literal(EXPERIMENT_EVAL_FORMAT),
  label: z.string(),
  method: z.string(),
  variant: z.record(z.string(), z.unknown()),
  seed: z.number(),
  memory: z.enum([...MEMORY_KINDS, FOREIGN_NOTES]),
  policy: z.string(),
  suites: z.array(
    z.looseObject({
      name: z.string(),
      domain: z.enum(['in', 'out']),
      metrics: z.custom<MetaEpisodeMetricsV1>((m) => typeof m === 'object' && m !== null && 'overall' in m),
      swaps: z.object({ replaced: z.number(), sameText: z.number() }).optional(),
    }),
  ),
  noteDonor: z.string().optional(),
  trainSeconds: z.number(),
  evalSeconds: z.number(),
});

const evalSpec = {
  what: 'experiment evaluation record',
  fix: 'delete it and run the experiment again to redo that evaluation',
  schema: evalSchema,
} as const;

/** `experiment-timing.json` of a trained run. */
const timingSchema = z.looseObject({ seconds: z.number().optional() });

/** Every evaluation record of an experiment directory (all the calls that wrote into it). */
export async function readExperimentEvals(outDir: string): Promise<ExperimentEvalV1[]> {
  const dir = join(outDir, 'evals');
  if (!(await pathExists(dir))) return [];
  const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  const out: ExperimentEvalV1[] = [];
  for (const f of files) {
    // Files of another format (an older version's) are skipped; ours must have the record's shape.
    const { format } = await readJsonChecked(join(dir, f), {
      ...evalSpec,
      schema: z.looseObject({ format: z.unknown() }),
    });
    if (format === EXPERIMENT_EVAL_FORMAT) out.push(await readJsonChecked(join(dir, f), evalSpec));
  }
  return out;
}

/** Trains a policy at a seed (resuming a partial run); returns the checkpoint and the wall time. */
async function trainUnit(
  options: ExperimentOptions,
  policy: ExperimentPolicy,
  seed: number,
  config: TrainConfig,
): Promise<{ checkpoint: string; seconds: number }> {
  const runDir = join(options.outDir, 'runs', `${fileLabel(policy.label)}-s${seed}`);
  const done = await latestCheckpoint(runDir);
  const timingPath = join(runDir, 'experiment-timing.json');
  if (done && done.state.nextIteration >= config.train.iterations && (await pathExists(timingPath))) {
    const timing = await readJsonChecked(timingPath, {
      what: 'training time of an experiment run',
      fix: 'delete it and run the experiment again',
      schema: timingSchema,
    });
    return { checkpoint: done.dir, seconds: timing.seconds ?? 0 };
  }
  options.log?.(`train ${policy.label}, seed ${seed}: ${runDir}`);
  const started = performance.now();
  const r = await trainPipeline({
    env: options.spec.env,
    method: config.method,
    preset: options.spec.preset,
    seed,
    runDir,
    resume: await pathExists(runDir),
    ...(options.spec.model === undefined ? {} : { model: options.spec.model }),
    ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
    overrides: policyOverrides(options.spec, policy),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.log ? { log: options.log } : {}),
    onEvent: (e) => options.onTrainingEvent?.(policy.label, seed, e),
  });
  const seconds = (performance.now() - started) / 1000;
  await writeJsonAtomic(timingPath, { seconds });
  if (!r.result.lastCheckpoint) throw new ConfigError(`Run '${runDir}' ended without a checkpoint.`);
  return { checkpoint: r.result.lastCheckpoint, seconds };
}

/**
 * The reflection evaluation whose notes a foreign-notes evaluation shows, when an earlier call wrote it:
 * played again in memory (the same weights, seeds and tasks play the same games) and compared with the
 * stored record, so the log says whether the notes come from the very games on disk.
 */
async function replayReflection(
  options: ExperimentOptions,
  policy: ExperimentPolicy,
  seed: number,
  play: () => Promise<ConfigEvaluationV1[]>,
): Promise<ConfigEvaluationV1[]> {
  options.log?.(
    `replay ${policy.label}, seed ${seed}, memory reflection in memory: the notes of its foreign-notes evaluation`,
  );
  const replayed = await play();
  const stored = await readJsonChecked(evalPath(options.outDir, policy.label, seed, 'reflection'), evalSpec);
  const metrics = (suites: readonly { readonly metrics: MetaEpisodeMetricsV1 }[]) =>
    JSON.stringify(suites.map((s) => s.metrics));
  options.log?.(
    metrics(stored.suites) === metrics(replayed.map((r) => r.result))
      ? `  the replay matches the stored reflection evaluation of ${policy.label}, seed ${seed}`
      : `  the replay differs from the stored reflection evaluation of ${policy.label}, seed ${seed} (written by other code or on another machine); the foreign notes come from the replay`,
  );
  return replayed;
}

/** Evaluates one policy at one seed under every protocol not yet on disk. */
async function evaluateUnit(
  options: ExperimentOptions,
  policy: ExperimentPolicy,
  seed: number,
  warmStart: string,
): Promise<void> {
  const config = policyConfig(options.spec, policy, seed);
  const pending: EvalProtocol[] = [];
  for (const memory of policyMemories(options.spec, policy.method)) {
    if (!(await pathExists(evalPath(options.outDir, policy.label, seed, memory)))) pending.push(memory);
  }
  if (pending.length === 0) return;
  // Foreign notes are drawn from the reflection evaluation, so it is played first.
  pending.sort((a, b) => Number(a === FOREIGN_NOTES) - Number(b === FOREIGN_NOTES));
  const trained = policy.method === WARM_START ? null : await trainUnit(options, policy, seed, config);
  // Evaluation only samples: the weights are held once, by the learner's runner.
  const learner = await loadModel(warmStart, { memory: memoryLimitsOfConfig(config), inferenceOnly: true });
  try {
    if (trained) await learner.load(trained.checkpoint);
    const play = (memory: MemoryKind, wrapMemory?: (m: MemoryV1, s: EvaluationSuiteV1) => MemoryV1) =>
      evaluateConfig({
        config,
        policy: learner.policy,
        memory,
        ...(wrapMemory ? { wrapMemory } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    // The reflection evaluation with its games, kept for the foreign-notes evaluation when it is pending.
    let reflection: ConfigEvaluationV1[] = [];
    // The notes the foreign-notes evaluation shows: the reflection evaluation's, or the note donor's.
    let donors: ConfigEvaluationV1[] = [];
    const { noteDonor } = options.spec;
    for (const memory of pending) {
      if (memory === FOREIGN_NOTES) {
        if (reflection.length === 0) {
          reflection = await replayReflection(options, policy, seed, () => play('reflection'));
        }
        if (noteDonor !== undefined) {
          options.log?.(`play the note donor ${noteDonor} on the tasks of ${policy.label}, seed ${seed}`);
        }
        donors =
          noteDonor === undefined ? reflection : await donorEvaluation(noteDonor, config, options.signal);
      }
      options.log?.(`evaluate ${policy.label}, seed ${seed}, memory ${memory}`);
      const started = performance.now();
      const results =
        memory === FOREIGN_NOTES ? await play('reflection', foreignNotesOf(donors)) : await play(memory);
      if (memory === 'reflection') reflection = results;
      const record: ExperimentEvalV1 = {
        format: EXPERIMENT_EVAL_FORMAT,
        label: policy.label,
        method: policy.method,
        variant: policy.variant,
        seed,
        memory,
        policy: storedPath(trained?.checkpoint ?? warmStart),
        suites: results.map((r) => ({
          name: r.suite.name,
          domain: r.suite.domain,
          metrics: r.result.metrics,
          ...(memory === FOREIGN_NOTES ? { swaps: swapsOf(reflection, donors, r.suite) } : {}),
        })),
        ...(memory === FOREIGN_NOTES && noteDonor !== undefined
          ? { noteDonor: noteDonor === 'teacher' ? noteDonor : storedPath(noteDonor) }
          : {}),
        code: trainerCode(),
        machine: trainerMachine(),
        trainSeconds: trained?.seconds ?? 0,
        evalSeconds: (performance.now() - started) / 1000,
      };
      await writeJsonAtomic(evalPath(options.outDir, policy.label, seed, memory), record);
    }
  } finally {
    await learner.dispose();
  }
}

export const evalPath = (outDir: string, label: string, seed: number, memory: EvalProtocol): string =>
  join(outDir, 'evals', `${fileLabel(label)}-s${seed}.${memory}.json`);

/** Runs (or continues) the whole grid, seed by seed, then returns the evaluation records. */
export async function runExperiment(given: ExperimentOptions): Promise<ExperimentEvalV1[]> {
  // Every input is checked, as given, before anything is written, trained or evaluated.
  const policies = await checkExperimentInputs(given.spec);
  const options = { ...given, spec: withAbsolutePaths(given.spec) };
  const { model } = options.spec;
  await recordSpec(options);
  const out: ExperimentEvalV1[] = [];
  for (const seed of options.spec.seeds) {
    const warmStart = await resolveWarmStart({
      env: options.spec.env,
      preset: options.spec.preset,
      seed,
      ...(model === undefined ? {} : { model, modelOption: 'spec.model' }),
      overrides: options.spec.overrides,
      ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.log ? { log: options.log } : {}),
    })
      // The experiment evaluates the warm start under its own protocol: no second evaluation here.
      .ensure({ evaluate: !policies.some((p) => p.method === WARM_START) });
    for (const policy of policies) {
      await evaluateUnit(options, policy, seed, warmStart);
      for (const memory of policyMemories(options.spec, policy.method)) {
        out.push(await readJsonChecked(evalPath(options.outDir, policy.label, seed, memory), evalSpec));
      }
    }
  }
  return out;
}
