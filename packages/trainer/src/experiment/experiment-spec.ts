/**
 * What a `mage experiment` call asks for (`ExperimentSpecV1`): the grid's policies, their configs and
 * evaluation protocols, and the checks that refuse a spec before anything runs — every policy's config at
 * every seed (`checkExperiment`), then what needs the file system (`checkExperimentInputs`: the warm start's
 * model or teacher, the note donor). Running the grid is `experiment.ts`.
 */

import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ConfigError, MageError } from '@mage-rl/core';
import { modelKindOf } from '@mage-rl/learner';
import {
  envDefinition,
  MEMORY_KINDS,
  METHODS,
  type MemoryKind,
  type MethodId,
  mergeConfig,
  type RunPresetId,
  type TrainConfig,
  type TrainConfigInput,
} from '@mage-rl/recipes';
import { modelSourceOf } from '../run-record/run-record';
import { trainConfigOf } from '../train/train';
import { resolveWarmStart } from '../warm-start/warm-start';

export const EXPERIMENT_FORMAT = 'mage-rl/experiment@1';

/** The policy id of the untrained warm start in a grid. */
export const WARM_START = 'warm-start';

/** One switch of the grid: a config path and the values it takes. */
export interface GridAxis {
  readonly path: string;
  readonly values: readonly unknown[];
}

/** What one `mage experiment` call asks for (recorded, merged with earlier calls, in `experiment.json`). */
export interface ExperimentSpecV1 {
  readonly format: typeof EXPERIMENT_FORMAT;
  readonly env: string;
  readonly preset: RunPresetId;
  /** Method ids and `warm-start`. */
  readonly methods: readonly string[];
  readonly seeds: readonly number[];
  /** Config values for every run (`--config`, `--set`). */
  readonly overrides: TrainConfigInput;
  /** Switch values crossed with every trained method. */
  readonly grid: readonly GridAxis[];
  /**
   * The evaluation protocols; every policy is evaluated under each. A memory kind; `method`: the memory the
   * method trained with (the warm start's is `reflection`); `foreign-notes`: the foreign-notes control
   * (`FOREIGN_NOTES`), which needs `reflection` in the list.
   */
  readonly evalMemories: readonly EvalMemory[];
  /**
   * With `foreign-notes`: the policy whose notes the control shows (`teacher`, a run or model directory),
   * from its reflection evaluation on the same tasks. Its notes name moves a policy did not make, which the
   * policy's own cannot when it always starts the same way. Default: the policy's own other meta-episodes.
   * A directory is recorded absolute.
   */
  readonly noteDonor?: string;
  /**
   * A mage-tiny or Hugging Face model directory every seed starts from instead of its cached warm start
   * (an env without a warm-start teacher needs one); the `warm-start` policy evaluates it untrained.
   * Recorded absolute.
   */
  readonly model?: string;
}

/**
 * The foreign-notes control: the `reflection` memory with each earlier attempt's note (and result) replaced
 * by the one another meta-episode of the same policy's `reflection` evaluation (same suite, same seed), or
 * of the note donor's (`ExperimentSpecV1.noteDonor`), wrote after the same attempt (`foreignNoteDonors`).
 * Own notes minus foreign notes is what reading the notes is worth, beyond having notes-shaped text in the
 * context.
 */
export const FOREIGN_NOTES = 'foreign-notes';

/** What one evaluation record was played with: a memory kind, or the foreign-notes control. */
export type EvalProtocol = MemoryKind | typeof FOREIGN_NOTES;

/** An evaluation protocol as asked for: `method` stands for the memory the policy trained with. */
export type EvalMemory = EvalProtocol | 'method';

/** Every value `spec.evalMemories` takes (`--eval-memory`). */
export const EVAL_MEMORIES: readonly EvalMemory[] = [...MEMORY_KINDS, 'method', FOREIGN_NOTES];

/** The distinct protocols a policy is evaluated with. */
export function policyMemories(spec: Pick<ExperimentSpecV1, 'evalMemories'>, method: string): EvalProtocol[] {
  const own: MemoryKind = method === WARM_START ? 'reflection' : METHODS[method as MethodId].memory;
  return [...new Set(spec.evalMemories.map((m) => (m === 'method' ? own : m)))];
}

/** One policy of the grid: a method with one combination of switch values. */
export interface ExperimentPolicy {
  /** `mage`, `mage[advantage.episodeBaseline=attempt]`, `warm-start`. */
  readonly label: string;
  readonly method: string;
  readonly variant: Readonly<Record<string, unknown>>;
}

/** Every policy of the grid, warm start first, switch combinations in axis order. */
export function experimentPolicies(spec: Pick<ExperimentSpecV1, 'methods' | 'grid'>): ExperimentPolicy[] {
  let combos: Record<string, unknown>[] = [{}];
  for (const axis of spec.grid) {
    combos = combos.flatMap((c) => axis.values.map((v) => ({ ...c, [axis.path]: v })));
  }
  const label = (method: string, variant: Record<string, unknown>) => {
    const parts = Object.entries(variant).map(
      ([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`,
    );
    return parts.length > 0 ? `${method}[${parts.join(',')}]` : method;
  };
  const ordered = [...spec.methods].sort((a, b) => Number(b === WARM_START) - Number(a === WARM_START));
  return ordered.flatMap((method) =>
    method === WARM_START
      ? [{ label: WARM_START, method, variant: {} }]
      : combos.map((variant) => ({ label: label(method, variant), method, variant })),
  );
}

/** `{ 'a.b': 1 }` → `{ a: { b: 1 } }`. */
function nested(variant: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const wrap = (keys: readonly string[], value: unknown): Record<string, unknown> => {
    const [key = '', ...rest] = keys;
    return { [key]: rest.length === 0 ? value : wrap(rest, value) };
  };
  return mergeConfig(...Object.entries(variant).map(([path, value]) => wrap(path.split('.'), value)));
}

/** A file-name-safe form of a label. */
export const fileLabel = (label: string): string => label.replace(/[^\w.=+-]+/g, '_');

/** A policy's values over the preset: the experiment's, its switch values, no in-loop evaluation. */
// The grid's values are the user's, typed only once `resolveTrainConfig` has validated the merged config.
export const policyOverrides = (spec: ExperimentSpecV1, policy: ExperimentPolicy): TrainConfigInput =>
  mergeConfig<TrainConfigInput>(spec.overrides, nested(policy.variant) as TrainConfigInput, {
    train: { evaluate: false },
  });

/** The resolved config of a policy at a seed (the warm start uses MAGE's, for the suites and sampling). */
export function policyConfig(spec: ExperimentSpecV1, policy: ExperimentPolicy, seed: number): TrainConfig {
  const method = (policy.method === WARM_START ? 'mage' : policy.method) as MethodId;
  return trainConfigOf({
    env: spec.env,
    method,
    preset: spec.preset,
    seed,
    overrides: policyOverrides(spec, policy),
  });
}

/** Validates the grid before anything runs: every policy's config must resolve at every seed. */
export function checkExperiment(spec: ExperimentSpecV1): ExperimentPolicy[] {
  if (spec.methods.length === 0)
    throw new ConfigError('`spec.methods` lists no method.', { path: 'spec.methods' });
  if (spec.seeds.length === 0) throw new ConfigError('`spec.seeds` lists no seed.', { path: 'spec.seeds' });
  const unknownMemory = spec.evalMemories.find((m) => !EVAL_MEMORIES.includes(m));
  if (unknownMemory !== undefined) {
    throw new ConfigError(
      `\`spec.evalMemories\`: unknown protocol '${String(unknownMemory)}'; use ${EVAL_MEMORIES.join(', ')}.`,
      { path: 'spec.evalMemories' },
    );
  }
  if (spec.evalMemories.includes(FOREIGN_NOTES) && !spec.evalMemories.includes('reflection')) {
    throw new ConfigError(
      `\`spec.evalMemories\`: '${FOREIGN_NOTES}' shows each policy the notes of other meta-episodes of its 'reflection' evaluation; list 'reflection' too (an evaluation already on disk is not played again).`,
      { path: 'spec.evalMemories' },
    );
  }
  if (spec.noteDonor !== undefined && !spec.evalMemories.includes(FOREIGN_NOTES)) {
    throw new ConfigError(
      `\`spec.noteDonor\` gives the foreign-notes control its notes: list '${FOREIGN_NOTES}' in \`spec.evalMemories\`.`,
      { path: 'spec.noteDonor' },
    );
  }
  const shared = spec.grid.find((axis) => axis.path === 'warmStart' || axis.path.startsWith('warmStart.'));
  if (shared) {
    throw new ConfigError(
      `\`spec.grid\` ${shared.path}: the warm start is shared by every policy of a seed; set it for the whole experiment in \`spec.overrides\` (${shared.path}=<value>; one \`outDir\` per value).`,
      { path: 'spec.grid' },
    );
  }
  const policies = experimentPolicies(spec);
  for (const policy of policies) {
    if (policy.method !== WARM_START && !(policy.method in METHODS)) {
      throw new ConfigError(`\`spec.methods\`: unknown method '${policy.method}'.`, {
        path: 'spec.methods',
      });
    }
    if (policy.method !== WARM_START && !METHODS[policy.method as MethodId].trains) {
      throw new ConfigError(
        `\`spec.methods\`: '${policy.method}' does not train (an inference-time baseline); an experiment trains its methods. Evaluate it with \`mage eval --method ${policy.method}\`.`,
        { path: 'spec.methods' },
      );
    }
    for (const seed of spec.seeds) {
      const { learner } = policyConfig(spec, policy, seed);
      if (learner.backend !== 'local') {
        throw new ConfigError(
          `\`spec.overrides\` and \`spec.grid\`: learner.backend '${learner.backend}' — an experiment trains and evaluates its policies in this process (learner.backend local); train on the service with \`mage train\`.`,
          { path: 'spec.overrides' },
        );
      }
    }
  }
  return policies;
}

/**
 * `spec` with its directories made absolute (the note donor's and the model), so that `experiment.json`
 * names the same ones whatever the working directory of a later call (`teacher` stays as given).
 */
export function withAbsolutePaths(spec: ExperimentSpecV1): ExperimentSpecV1 {
  const { noteDonor, model } = spec;
  return {
    ...spec,
    ...(noteDonor === undefined || noteDonor === 'teacher' ? {} : { noteDonor: resolve(noteDonor) }),
    ...(model === undefined ? {} : { model: resolve(model) }),
  };
}

/** What `spec.noteDonor` takes, for its errors. */
const DONOR_TAKES =
  "`spec.noteDonor` takes 'teacher' (the env's warm-start teacher), a run directory (its latest checkpoint) or a mage-tiny or Hugging Face model directory";

/**
 * Refuses a note donor that cannot be played, quoting it as given and where it points: `teacher` of an env
 * with no teacher, a server URL, anything that is not a directory, a run directory whose model cannot be rebuilt, a
 * directory that is neither a run nor a model directory.
 */
async function checkNoteDonor(donor: string, env: string): Promise<void> {
  const refuse = (why: string, cause?: unknown) =>
    new ConfigError(`\`spec.noteDonor\` '${donor}': ${why}; ${DONOR_TAKES}.`, {
      path: 'spec.noteDonor',
      ...(cause === undefined ? {} : { cause }),
    });
  if (donor === 'teacher') {
    if (envDefinition(env).warmStart) return;
    throw refuse(`env '${env}' has no warm-start teacher`);
  }
  if (/^https?:\/\//.test(donor)) throw refuse('a server URL, which an experiment does not play');
  const dir = resolve(donor);
  const info = await stat(dir).catch(() => null);
  if (info === null || !info.isDirectory()) {
    throw refuse(`${info === null ? 'no such directory' : 'is a file, not a directory'} (${dir})`);
  }
  // A run is its recorded warm start with its latest checkpoint over it; anything else is a model directory.
  const source = await modelSourceOf(dir).catch((error: unknown) => {
    if (!MageError.isInstance(error)) throw error;
    throw refuse(`a run directory whose model cannot be rebuilt (${error.message})`, error);
  });
  await modelKindOf(source.modelDir).catch((error: unknown) => {
    if (!MageError.isInstance(error)) throw error;
    throw refuse(
      source.checkpointDir === undefined
        ? `${dir} is neither a run directory (no checkpoint) nor a model directory`
        : `the warm start its run recorded, ${source.modelDir}, is not a model directory`,
      error,
    );
  });
}

/**
 * `checkExperiment`, then what it needs of the file system, before anything is written, trained or
 * evaluated: the warm start (`spec.model` a model directory, or the env's warm-start teacher) and the note
 * donor. Returns the grid's policies.
 */
export async function checkExperimentInputs(spec: ExperimentSpecV1): Promise<ExperimentPolicy[]> {
  const policies = checkExperiment(spec);
  // Every seed's warm start is the same model, or one made by the same env's teacher.
  await resolveWarmStart({
    env: spec.env,
    preset: spec.preset,
    seed: spec.seeds[0] ?? 0,
    ...(spec.model === undefined ? {} : { model: spec.model, modelOption: 'spec.model' }),
    overrides: spec.overrides,
  }).check();
  if (spec.noteDonor !== undefined) await checkNoteDonor(spec.noteDonor, spec.env);
  return policies;
}
