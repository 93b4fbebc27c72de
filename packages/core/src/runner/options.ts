/** Options, events and errors of the meta-episode runner, and the validation of its options. */

import type {
  AttemptRecord,
  ContextLayout,
  EnvV1,
  GroupRecord,
  MemoryV1,
  MetaEpisodeBatchRecord,
  OpponentV1,
  PolicyV1,
  PopulationV1,
  PromptStyle,
  RowRecord,
  SamplingOptions,
  Seat,
  SlotRecord,
} from '@mage-rl/spec';
import { ConfigError, type MageErrorOptions, RolloutError } from '@mage-rl/spec';

/** Every group plays `first`, every group plays `second`, or a fraction of the groups plays second. */
export type SeatOption = Seat | { readonly mixed: number };

/** Where the opponents of a run's slots come from (for envs that need one). */
export interface OpponentSourceOptions<S = unknown, A = unknown> {
  /** Opponents drawn per group through `assignOpponents` (mutually exclusive with `opponents`). */
  readonly population?: PopulationV1;
  /** Opponent ids assigned to groups in turn: group g faces `opponents[g % opponents.length]`. */
  readonly opponents?: readonly string[];
  /** Builds a fresh opponent for an id (core cannot import `@mage-rl/opponents`). One per slot. */
  readonly makeOpponent?: (opponentId: string) => OpponentV1<S, A>;
}

export interface RunMetaEpisodesOptions<S = unknown, A = unknown> extends OpponentSourceOptions<S, A> {
  readonly env: EnvV1<S, A>;
  readonly policy: PolicyV1;
  /** What earlier attempts put into the context, and how prompts are laid out (`@mage-rl/reflection`). */
  readonly memory: MemoryV1;
  readonly groups: number;
  readonly groupSize: number;
  /** K. Default 3. */
  readonly attempts?: number;
  /** Default `turn`. */
  readonly context?: ContextLayout;
  /** Default `verbose` when the env has it, else the env's first style. */
  readonly style?: PromptStyle;
  /** A slot that succeeded plays no further attempts and writes no further reflections. Default true. */
  readonly earlyStop?: boolean;
  /** Default `first`. */
  readonly seats?: SeatOption;
  /** Run seed: task seeds, seats, opponent draws and sampling seeds all derive from it. */
  readonly seed: number | string;
  /** Iteration index (a different draw of tasks and opponents per iteration). Default 0. */
  readonly iteration?: number;
  /** Number the groups from here (`g<offset>`…); lets evaluation run in waves with the same tasks. */
  readonly groupOffset?: number;
  /** Explicit task seed per group (index = group index without offset); drawn from `seed` otherwise. */
  readonly taskSeeds?: readonly number[];
  readonly sampling?: Omit<SamplingOptions, 'signal'>;
  /** Per-phase response token limits (passed as `maxTokens` of each request). */
  readonly maxTokens?: { readonly play?: number; readonly reflect?: number };
  /** Cancels between turns (and is passed to `policy.generate`). */
  readonly signal?: AbortSignal;
}

/** Typed progress events of `iterateMetaEpisodes`. */
export type RunnerEvent =
  | {
      readonly type: 'rollout-start';
      readonly iteration: number;
      readonly attempts: number;
      readonly groups: readonly GroupRecord[];
      readonly slots: number;
    }
  | {
      /** One lock-step batch: one `policy.generate` call over the active slots. */
      readonly type: 'turn-end';
      readonly tick: number;
      readonly rows: readonly RowRecord[];
      readonly activeSlots: number;
    }
  | {
      readonly type: 'attempt-end';
      readonly slot: string;
      readonly group: string;
      readonly record: AttemptRecord;
    }
  | { readonly type: 'slot-end'; readonly record: SlotRecord }
  | { readonly type: 'rollout-error'; readonly error: RolloutFailureError }
  | { readonly type: 'rollout-end'; readonly batch: MetaEpisodeBatchRecord; readonly policyCalls: number };

export type RunnerEventType = RunnerEvent['type'];

/**
 * A play turn the policy answered but the env never finished stepping: its `parse` or `step` threw, or
 * the opponent it asked for a reply inside `step` did. It holds a row's fields as far as they are known
 * before the step (slot, attempt, turn, `anchor` of the state the agent acted from, prompt and response)
 * and none of those the step decides (`reward`, `valid`, `invalid`), so it is not a `RowRecord`: nothing
 * trains on it or counts it as a move, and a failure's `partial` never holds it. A caller that stopped
 * the env on purpose (the dashboard's person, whose reply is not ready yet) shows it as the move being
 * answered.
 */
export type UnsteppedTurn = Omit<RowRecord, 'phase' | 'reward' | 'valid' | 'invalid' | 'noteRecall'> & {
  readonly phase: 'play';
};

export interface RolloutFailureOptions extends MageErrorOptions {
  readonly unsteppedTurn?: UnsteppedTurn;
}

/**
 * A policy, env, opponent or memory threw during a rollout. `context` names the slot, group, attempt,
 * turn and phase; `partial` holds every row, slot and group recorded before the failure, and only those:
 * rows of turns the env stepped. A failure inside a play turn's env step also carries that turn in
 * `unsteppedTurn`.
 */
export class RolloutFailureError extends RolloutError {
  readonly partial: MetaEpisodeBatchRecord;
  /** The play turn whose env step threw (absent when the failure happened anywhere else). */
  readonly unsteppedTurn?: UnsteppedTurn;

  constructor(
    code: 'ENV_FAILURE' | 'POLICY_FAILURE' | 'OPPONENT_FAILURE' | 'RUNNER_FAILURE',
    message: string,
    partial: MetaEpisodeBatchRecord,
    options: RolloutFailureOptions = {},
  ) {
    const { unsteppedTurn, ...rest } = options;
    super(code, message, rest);
    this.name = 'RolloutFailureError';
    this.partial = partial;
    if (unsteppedTurn) this.unsteppedTurn = unsteppedTurn;
  }
}

export interface ResolvedRunOptions {
  readonly attempts: number;
  readonly context: ContextLayout;
  readonly style: PromptStyle;
  readonly earlyStop: boolean;
  readonly iteration: number;
  readonly groupOffset: number;
}

function positiveInt(value: number, path: string): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigError(`${path} must be a positive integer, got ${String(value)}.`, {
      path,
      context: { value },
    });
  }
}

/** Validates the options; bad values name the path, the value and the allowed ones. */
export function resolveRunOptions<S, A>(options: RunMetaEpisodesOptions<S, A>): ResolvedRunOptions {
  const { env } = options;
  positiveInt(options.groups, 'groups');
  positiveInt(options.groupSize, 'groupSize');
  const attempts = options.attempts ?? 3;
  positiveInt(attempts, 'attempts');
  const iteration = options.iteration ?? 0;
  if (!Number.isInteger(iteration) || iteration < 0) {
    throw new ConfigError(`iteration must be a non-negative integer, got ${String(iteration)}.`, {
      path: 'iteration',
    });
  }
  const groupOffset = options.groupOffset ?? 0;
  if (!Number.isInteger(groupOffset) || groupOffset < 0) {
    throw new ConfigError(`groupOffset must be a non-negative integer, got ${String(groupOffset)}.`, {
      path: 'groupOffset',
    });
  }
  const context = options.context ?? 'turn';
  if (context !== 'turn' && context !== 'transcript') {
    throw new ConfigError(`context must be one of turn, transcript; got '${String(context)}'.`, {
      path: 'context',
    });
  }
  const style = options.style ?? (env.promptStyles.includes('verbose') ? 'verbose' : env.promptStyles[0]);
  if (style === undefined || !env.promptStyles.includes(style)) {
    throw new ConfigError(
      `style '${String(style)}' is not supported by env '${env.id}'; allowed: ${env.promptStyles.join(', ')}.`,
      { path: 'style' },
    );
  }
  const seats = options.seats ?? 'first';
  if (typeof seats === 'object') {
    if (!(seats.mixed >= 0 && seats.mixed <= 1)) {
      throw new ConfigError(`seats.mixed must be a fraction in [0, 1], got ${String(seats.mixed)}.`, {
        path: 'seats.mixed',
      });
    }
  } else if (seats !== 'first' && seats !== 'second') {
    throw new ConfigError(`seats must be first, second or { mixed: fraction }; got '${String(seats)}'.`, {
      path: 'seats',
    });
  }
  if (options.population && options.opponents) {
    throw new ConfigError('Give either population or opponents, not both.', { path: 'opponents' });
  }
  if (env.needsOpponent) {
    if (!options.population && (!options.opponents || options.opponents.length === 0)) {
      throw new ConfigError(
        `Env '${env.id}' needs opponents: give population or a non-empty opponents list.`,
        {
          path: 'opponents',
        },
      );
    }
    if (!options.makeOpponent) {
      throw new ConfigError(`Env '${env.id}' needs opponents: give makeOpponent(id).`, {
        path: 'makeOpponent',
      });
    }
  }
  if (options.taskSeeds && options.taskSeeds.length < options.groups) {
    throw new ConfigError(
      `taskSeeds has ${options.taskSeeds.length} entries but there are ${options.groups} groups.`,
      { path: 'taskSeeds' },
    );
  }
  return { attempts, context, style, earlyStop: options.earlyStop ?? true, iteration, groupOffset };
}
