/** Options of the training loop and their validation. */

import type {
  ContextLayout,
  EnvV1,
  JsonObject,
  JsonValue,
  LearnerV1,
  MemoryV1,
  PromptStyle,
  RowRecord,
  SamplingOptions,
  TokenLossFn,
} from '@mage-rl/spec';
import { ConfigError, firstIssue, showValue } from '@mage-rl/spec';
import { z } from 'zod';
import type { CodeV1 } from '../machine';
import type { OpponentSourceOptions, RunnerEvent, SeatOption } from '../runner';
import type { RunLock } from './run-lock';

/** One evaluation suite: opponents (for two-player envs) and optionally another env configuration. */
export interface EvaluationSuiteOptions<S = unknown, A = unknown> {
  /** Opponent ids; each gets `episodes` meta-episodes. */
  readonly opponents?: readonly string[];
  /** Default: the training env (give e.g. a 3-box Sokoban for an out-of-domain suite). */
  readonly env?: EnvV1<S, A>;
}

export interface TrainingEvaluationOptions<S = unknown, A = unknown> {
  /** Evaluate after every `every`-th iteration and after the last one. */
  readonly every: number;
  /** Also evaluate once before the first update (not on resume). Default false. */
  readonly atStart?: boolean;
  /** Meta-episodes per opponent. Default 16. */
  readonly episodes?: number;
  readonly inDomain?: EvaluationSuiteOptions<S, A>;
  readonly outOfDomain?: EvaluationSuiteOptions<S, A>;
  /** Default: the paper's evaluation sampling (temperature 0.7, top-p 0.8, top-k 20). */
  readonly sampling?: Omit<SamplingOptions, 'signal'>;
  /** Default `<seed>/eval`: the same tasks at every evaluation, different from training tasks. */
  readonly seed?: number | string;
  /** Default: the training K. */
  readonly attempts?: number;
  /** Default: the training memory. Use a separate instance for memories that keep cases. */
  readonly memory?: MemoryV1;
  /** Default: the training value. */
  readonly earlyStop?: boolean;
  /** Default: the training seats. */
  readonly seats?: SeatOption;
}

/**
 * A memory that keeps state across meta-episodes (retrieval memories) saves it into every checkpoint's
 * `state.json` and gets it back on resume.
 */
export interface MemoryStateOptions {
  save(): JsonValue;
  /** Called once on resume, before the first iteration, with what `save` returned. */
  restore(state: JsonValue): void;
}

/** How rollouts play (recipes' `rollout` section). */
export interface TrainingRolloutOptions {
  /** Groups per iteration; a group's slots share the task (opponent, seat, task seed). */
  readonly groups: number;
  /** Slots per group. Default 8. */
  readonly groupSize?: number;
  /** K. Default 3. */
  readonly attempts?: number;
  readonly context?: ContextLayout;
  readonly style?: PromptStyle;
  /** Default true. */
  readonly earlyStop?: boolean;
  /** Default `first`. */
  readonly seats?: SeatOption;
  /** Train-time sampling. Default temperature 1. */
  readonly sampling?: Omit<SamplingOptions, 'signal'>;
  readonly maxTokens?: { readonly play?: number; readonly reflect?: number };
}

/** How the learner is updated on an iteration's rows (recipes' `ppo` section, the loop's part of it). */
export interface TrainingUpdateOptions {
  /** PPO epochs over the iteration's rows. Default 1. */
  readonly epochs?: number;
  /** Rows per mini-batch. Default: all rows in one mini-batch. */
  readonly miniBatchRows?: number;
  /** Entropy bonus coefficient. Default 0.001. */
  readonly entropyCoef?: number;
  /**
   * Pack the rows of a slot whose token sequences extend each other into one sequence (`packRows`)
   * when the learner (and the reference) accept packed rows. Default true; the numbers are the same.
   */
  readonly packRows?: boolean;
  /**
   * Weight of the refused-action rows (`refusedRetryRows`): each retry after a rule-refused play turn also
   * trains the refused action at the retry's prompt, with this × the refused turn's advantage. Default 0
   * (none).
   */
  readonly refusedRetry?: number;
}

/** Checkpoints in the run directory. */
export interface TrainingCheckpointOptions {
  /** Checkpoint after every `every`-th iteration and after the last one. Default 10. */
  readonly every?: number;
  /** Checkpoints kept on disk (oldest removed first). Default 3. */
  readonly keep?: number;
}

export interface TrainingOptions<S = unknown, A = unknown> extends OpponentSourceOptions<S, A> {
  readonly env: EnvV1<S, A>;
  /** The policy being trained; rollouts sample from `learner.policy`. */
  readonly learner: LearnerV1;
  readonly memory: MemoryV1;
  /** Per-row advantages of one iteration's rows, in row order (e.g. `@mage-rl/gigpo` computeAdvantages). */
  readonly advantages: (rows: readonly RowRecord[]) => ArrayLike<number>;
  /** Per-token objective (e.g. `@mage-rl/gigpo` ppoTokenLoss). */
  readonly loss: TokenLossFn;
  /** Frozen reference policy for the KL term: its log-probs go into `refLogprobs`. */
  readonly reference?: Pick<LearnerV1, 'logprobs' | 'packedRows'>;
  /** Run seed: every iteration's randomness derives from (seed, iteration). */
  readonly seed: number | string;
  readonly iterations: number;
  readonly rollout: TrainingRolloutOptions;
  readonly update?: TrainingUpdateOptions;
  readonly evaluation?: TrainingEvaluationOptions<S, A>;
  /** Run directory: config.json, metrics.jsonl, checkpoints/. Without it nothing is written. */
  readonly runDir?: string;
  /** Only with `runDir`. */
  readonly checkpoints?: TrainingCheckpointOptions;
  /** Continue from the latest complete checkpoint in `runDir` (a fresh start when there is none). */
  readonly resume?: boolean;
  /** Extra JSON written into config.json under `extra` (e.g. the CLI's resolved method preset). */
  readonly config?: JsonObject;
  /**
   * Dotted paths inside `config` that may change on resume (a path covers everything under it): the
   * caller knows which of its values do not change what a run computes. Default none.
   */
  readonly resumeSafePaths?: readonly string[];
  /** The lock of `runDir` when the caller already holds it (see run-lock.ts); else the loop takes it. */
  readonly runLock?: RunLock;
  /**
   * Versions of the numeric runtimes the learner computes with (the trainer: `{ "onnxruntime-node":
   * "1.30.0" }`), recorded with the machine in `machine.json` (only with `runDir`).
   */
  readonly runtime?: Readonly<Record<string, string>>;
  /**
   * The code the process runs (`describeCode`: commit, dirty flag, package versions), recorded with the
   * machine in `machine.json` (only with `runDir`). Default `describeCode()`: the checkout core runs from and
   * core's version; the trainer passes its own with its packages' versions.
   */
  readonly code?: CodeV1;
  readonly memoryState?: MemoryStateOptions;
  /** Sees every runner event of training rollouts and evaluations (for progress bars). */
  readonly onRunnerEvent?: (event: RunnerEvent, phase: 'train' | 'eval') => void;
  readonly signal?: AbortSignal;
}

/**
 * The JSON-serialisable, validated numbers and switches of a run: what config.json records under
 * `training` (`mage-rl/run-config@1`), so its layout stays flat and a run started earlier still resumes.
 */
export interface ResolvedTrainingConfig {
  readonly seed: number | string;
  readonly iterations: number;
  readonly groups: number;
  readonly groupSize: number;
  readonly attempts: number;
  readonly context: ContextLayout | null;
  readonly style: PromptStyle | null;
  readonly earlyStop: boolean;
  readonly seats: SeatOption;
  readonly sampling: Omit<SamplingOptions, 'signal'>;
  readonly maxTokens: { readonly play?: number; readonly reflect?: number } | null;
  readonly epochs: number;
  readonly miniBatchRows: number | null;
  readonly entropyCoef: number;
  /** Absent when 0 (the default), so the records of runs without refused-action rows stay as they were. */
  readonly refusedRetry?: number;
  readonly checkpointEvery: number;
  readonly keepCheckpoints: number;
  readonly reference: boolean;
  readonly evaluation: {
    readonly every: number;
    readonly atStart: boolean;
    readonly episodes: number;
    readonly seed: number | string;
    readonly attempts: number;
    readonly earlyStop: boolean;
    readonly seats: SeatOption;
    readonly sampling: Omit<SamplingOptions, 'signal'>;
    readonly inDomain: { readonly opponents: readonly string[]; readonly envId: string } | null;
    readonly outOfDomain: { readonly opponents: readonly string[]; readonly envId: string } | null;
  } | null;
}

const KNOWN_KEYS = [
  'env',
  'learner',
  'memory',
  'population',
  'opponents',
  'makeOpponent',
  'advantages',
  'loss',
  'reference',
  'seed',
  'iterations',
  'rollout',
  'update',
  'evaluation',
  'runDir',
  'checkpoints',
  'resume',
  'config',
  'resumeSafePaths',
  'runLock',
  'runtime',
  'code',
  'memoryState',
  'onRunnerEvent',
  'signal',
] as const satisfies readonly (keyof TrainingOptions)[];

/** The keys of each group of options, for the unknown-key message. */
const GROUP_KEYS = {
  rollout: [
    'groups',
    'groupSize',
    'attempts',
    'context',
    'style',
    'earlyStop',
    'seats',
    'sampling',
    'maxTokens',
  ] as const satisfies readonly (keyof TrainingRolloutOptions)[],
  update: [
    'epochs',
    'miniBatchRows',
    'entropyCoef',
    'packRows',
    'refusedRetry',
  ] as const satisfies readonly (keyof TrainingUpdateOptions)[],
  checkpoints: ['every', 'keep'] as const satisfies readonly (keyof TrainingCheckpointOptions)[],
};

/** Compile-time checks that KNOWN_KEYS and GROUP_KEYS list every option. */
type Unlisted<T, K> = Exclude<keyof T, K> extends never ? true : never;
const everyOptionKnown: [
  Unlisted<TrainingOptions, (typeof KNOWN_KEYS)[number]>,
  Unlisted<TrainingRolloutOptions, (typeof GROUP_KEYS.rollout)[number]>,
  Unlisted<TrainingUpdateOptions, (typeof GROUP_KEYS.update)[number]>,
  Unlisted<TrainingCheckpointOptions, (typeof GROUP_KEYS.checkpoints)[number]>,
] = [true, true, true, true];
void everyOptionKnown;

/**
 * The loop's defaults, the one place they are defined: `trainingConfigOf` fills them in (and the update
 * reads `packRows`, which config.json does not record).
 */
export const TRAINING_DEFAULTS = {
  rollout: { groupSize: 8, attempts: 3, earlyStop: true, seats: 'first', sampling: { temperature: 1 } },
  update: { epochs: 1, entropyCoef: 0.001, packRows: true, refusedRetry: 0 },
  checkpoints: { every: 10, keep: 3 },
  evaluation: { atStart: false, episodes: 16, sampling: { temperature: 0.7, topP: 0.8, topK: 20 } },
} as const;

const int = (min: number, max = Number.MAX_SAFE_INTEGER) => {
  const allowed = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer in [${min}, ${max}]`;
  return z.int({ error: allowed }).min(min, { error: allowed }).max(max, { error: allowed });
};
const num = (min: number, max: number, exclusiveMin = false) => {
  const allowed = `a number in ${exclusiveMin ? '(' : '['}${min}, ${Number.isFinite(max) ? `${max}]` : 'Infinity)'}`;
  const base = z.number({ error: allowed });
  return (exclusiveMin ? base.gt(min, { error: allowed }) : base.min(min, { error: allowed })).max(max, {
    error: allowed,
  });
};
const bool = z.boolean({ error: 'true or false' });
const seedSchema = z.union([z.number().finite(), z.string()], { error: 'a finite number or a string' });
const samplingSchema = z.strictObject(
  {
    temperature: num(0, 100).optional(),
    topK: int(0).optional(),
    topP: num(0, 1, true).optional(),
    maxTokens: int(1).optional(),
  },
  { error: 'an object with temperature, topK, topP, maxTokens' },
);
const seatsSchema = z.union([z.enum(['first', 'second']), z.strictObject({ mixed: num(0, 1) })], {
  error: "'first', 'second' or { mixed: fraction in [0, 1] }",
});
const opponentList = z.array(z.string().min(1), { error: 'a list of opponent ids' });

const schema = z.looseObject({
  seed: seedSchema,
  iterations: int(1),
  rollout: z.looseObject(
    {
      groups: int(1),
      groupSize: int(1).optional(),
      attempts: int(1, 64).optional(),
      context: z.enum(['turn', 'transcript'], { error: "'turn' or 'transcript'" }).optional(),
      style: z.enum(['verbose', 'compact'], { error: "'verbose' or 'compact'" }).optional(),
      earlyStop: bool.optional(),
      seats: seatsSchema.optional(),
      sampling: samplingSchema.optional(),
      maxTokens: z
        .strictObject(
          { play: int(1).optional(), reflect: int(1).optional() },
          { error: 'an object { play?, reflect? }' },
        )
        .optional(),
    },
    { error: 'an object { groups, groupSize?, attempts?, … }' },
  ),
  update: z
    .looseObject(
      {
        epochs: int(1, 1000).optional(),
        miniBatchRows: int(1).optional(),
        entropyCoef: num(0, 1).optional(),
        packRows: bool.optional(),
        refusedRetry: num(0, 100).optional(),
      },
      { error: 'an object { epochs?, miniBatchRows?, entropyCoef?, packRows?, refusedRetry? }' },
    )
    .optional(),
  runDir: z.string({ error: 'a directory path' }).min(1, { error: 'a non-empty directory path' }).optional(),
  checkpoints: z
    .looseObject(
      { every: int(1).optional(), keep: int(1).optional() },
      { error: 'an object { every?, keep? }' },
    )
    .optional(),
  resume: bool.optional(),
  runtime: z
    .record(z.string(), z.string(), { error: 'an object of version strings by runtime name' })
    .optional(),
  code: z
    .looseObject(
      {
        commit: z.string().nullable(),
        dirty: z.boolean().nullable(),
        packages: z.record(z.string(), z.string()),
      },
      { error: 'a code description { commit, dirty, packages } (describeCode)' },
    )
    .optional(),
  opponents: opponentList.optional(),
  evaluation: z
    .looseObject({
      every: int(1),
      atStart: bool.optional(),
      episodes: int(1).optional(),
      seed: seedSchema.optional(),
      attempts: int(1, 64).optional(),
      earlyStop: bool.optional(),
      seats: seatsSchema.optional(),
      sampling: samplingSchema.optional(),
      inDomain: z.looseObject({ opponents: opponentList.optional() }).optional(),
      outOfDomain: z.looseObject({ opponents: opponentList.optional() }).optional(),
    })
    .optional(),
});

/** Throws `ConfigError` for keys of `value` (at `prefix`) not in `known`. */
function rejectUnknownKeys(value: object, known: readonly string[], prefix: string): void {
  const unknown = Object.keys(value).filter((k) => !known.includes(k));
  if (unknown.length > 0) {
    const named = unknown.map((k) => `'${prefix}${k}'`).join(', ');
    throw new ConfigError(
      `Unknown training option(s) ${named}; known options${prefix === '' ? '' : ` of '${prefix.slice(0, -1)}'`}: ${known.join(', ')}.`,
      { path: `${prefix}${unknown[0] as string}` },
    );
  }
}

function missing(path: string, what: string): never {
  throw new ConfigError(`Invalid training option '${path}': missing; give ${what}.`, { path });
}

/**
 * Validates `options` and fills in the defaults (`trainingConfigOf`); a bad value throws `ConfigError`
 * naming the path, the value and what is allowed. The loop runs it unless its caller hands it options
 * that a layer above has already validated (the trainer's path: recipes' schema checks the config).
 */
export function resolveTrainingOptions<S, A>(options: TrainingOptions<S, A>): ResolvedTrainingConfig {
  validateTrainingOptions(options);
  return trainingConfigOf(options);
}

/** Throws `ConfigError` for the first bad option: unknown keys, values out of range, missing parts. */
export function validateTrainingOptions<S, A>(options: TrainingOptions<S, A>): void {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigError('Training options must be an object.', { path: '' });
  }
  rejectUnknownKeys(options, KNOWN_KEYS, '');
  for (const group of ['rollout', 'update', 'checkpoints'] as const) {
    const value: unknown = options[group];
    if (typeof value === 'object' && value !== null) rejectUnknownKeys(value, GROUP_KEYS[group], `${group}.`);
  }
  const result = schema.safeParse(options);
  if (!result.success) {
    const { path, value, message } = firstIssue(result.error, options);
    throw new ConfigError(
      `Invalid training option '${path}': got ${showValue(value)}; allowed: ${message}.`,
      {
        path,
        context: { value: showValue(value), allowed: message },
      },
    );
  }
  if (typeof options.env?.createEpisode !== 'function') missing('env', 'an EnvV1');
  if (typeof options.learner?.update !== 'function') missing('learner', 'a LearnerV1');
  if (typeof options.memory?.createSlot !== 'function') missing('memory', 'a MemoryV1');
  if (typeof options.advantages !== 'function') missing('advantages', 'a function rows → advantages');
  if (typeof options.loss !== 'function') missing('loss', 'a TokenLossFn');
  if (options.reference !== undefined && typeof options.reference.logprobs !== 'function') {
    missing('reference', 'an object with logprobs(rows)');
  }
  if (options.resume && options.runDir === undefined) {
    throw new ConfigError("Invalid training option 'resume': true needs a runDir to resume from.", {
      path: 'resume',
    });
  }
  const ev = options.evaluation;
  if (ev && options.env.needsOpponent) {
    for (const name of ['inDomain', 'outOfDomain'] as const) {
      const suite = ev[name];
      if (suite && (suite.env ?? options.env).needsOpponent && (suite.opponents?.length ?? 0) === 0) {
        throw new ConfigError(
          `Invalid training option 'evaluation.${name}.opponents': got ${showValue(suite.opponents)}; allowed: a non-empty list of opponent ids.`,
          { path: `evaluation.${name}.opponents` },
        );
      }
    }
  }
}

/**
 * The numbers and switches of a run with every default filled in — the one place the loop's defaults
 * are defined. It checks nothing: its options are valid (`validateTrainingOptions`, or a caller whose own
 * schema already checked the values they come from).
 */
export function trainingConfigOf<S, A>(options: TrainingOptions<S, A>): ResolvedTrainingConfig {
  const { rollout, update = {}, checkpoints = {}, evaluation: ev } = options;
  const defaults = TRAINING_DEFAULTS;
  const attempts = rollout.attempts ?? defaults.rollout.attempts;
  const earlyStop = rollout.earlyStop ?? defaults.rollout.earlyStop;
  const seats = rollout.seats ?? defaults.rollout.seats;
  return {
    seed: options.seed,
    iterations: options.iterations,
    groups: rollout.groups,
    groupSize: rollout.groupSize ?? defaults.rollout.groupSize,
    attempts,
    context: rollout.context ?? null,
    style: rollout.style ?? null,
    earlyStop,
    seats,
    sampling: { ...defaults.rollout.sampling, ...rollout.sampling },
    maxTokens: rollout.maxTokens ?? null,
    epochs: update.epochs ?? defaults.update.epochs,
    miniBatchRows: update.miniBatchRows ?? null,
    entropyCoef: update.entropyCoef ?? defaults.update.entropyCoef,
    ...((update.refusedRetry ?? defaults.update.refusedRetry) > 0
      ? { refusedRetry: update.refusedRetry }
      : {}),
    checkpointEvery: checkpoints.every ?? defaults.checkpoints.every,
    keepCheckpoints: checkpoints.keep ?? defaults.checkpoints.keep,
    reference: options.reference !== undefined,
    evaluation: ev
      ? {
          every: ev.every,
          atStart: ev.atStart ?? defaults.evaluation.atStart,
          episodes: ev.episodes ?? defaults.evaluation.episodes,
          seed: ev.seed ?? `${String(options.seed)}/eval`,
          attempts: ev.attempts ?? attempts,
          earlyStop: ev.earlyStop ?? earlyStop,
          seats: ev.seats ?? seats,
          sampling: ev.sampling ?? { ...defaults.evaluation.sampling },
          inDomain: ev.inDomain
            ? { opponents: ev.inDomain.opponents ?? [], envId: (ev.inDomain.env ?? options.env).id }
            : null,
          outOfDomain: ev.outOfDomain
            ? { opponents: ev.outOfDomain.opponents ?? [], envId: (ev.outOfDomain.env ?? options.env).id }
            : null,
        }
      : null,
  };
}
