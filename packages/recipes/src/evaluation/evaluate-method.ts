/**
 * Evaluation by method (the methods of `METHODS`): builds the memory a method plays with (none, reflection, memento,
 * a-mem …) and runs core's `evaluate`, so `react`, `reflexion`, `memento` and `a-mem` run without any
 * training, and trained methods are evaluated with the memory they were trained with.
 */

import {
  type EvaluateOptions,
  type EvaluationResultV1,
  evaluate,
  type JsonObject,
  type MemoryV1,
  type OpponentV1,
  type PolicyV1,
  type RunnerEvent,
  UnknownIdError,
} from '@mage-rl/core';
import { envDefinition } from '../environments/registry';
import { METHOD_IDS, METHODS, type MethodId } from '../presets/methods';
import type { TrainConfig } from '../presets/schema';
import { memoryLayoutOf } from '../presets/wiring';
import {
  createEnvById,
  createMemoryOfKind,
  type MemoryKind,
  type MethodMemoryOptions,
  opponentFactory,
} from '../wiring';

/** `evaluate`'s options, with a method instead of a memory (the memory may still be given). */
export interface EvaluateMethodOptions<S = unknown, A = unknown>
  extends Omit<EvaluateOptions<S, A>, 'memory' | 'makeOpponent' | 'attempts' | 'waveSize'> {
  /** `react`, `reflexion`, `memento`, `a-mem`, `grpo`, `gigpo`, `lamer`, `mage`. */
  readonly method: string;
  /** Default: the opponents of `env.id`'s definition in the env registry. */
  readonly makeOpponent?: (opponentId: string) => OpponentV1<S, A>;
  /** K. Default 3 (also for methods trained with K = 1: later attempts are independent retries). */
  readonly attempts?: number;
  /**
   * Meta-episodes per lock-step wave. Default: everything at once, except for memories that persist across
   * meta-episodes (`memento`, `a-mem`), which play 4 waves so later waves retrieve what earlier waves stored.
   */
  readonly waveSize?: number;
  /**
   * Use this memory instead of a fresh one of the method's kind (e.g. a memento memory with saved cases).
   * A memory that persists across meta-episodes (it has `commit`) plays in waves, whatever the method.
   */
  readonly memory?: MemoryV1;
  readonly memoryOptions?: MethodMemoryOptions;
}

export interface MethodEvaluationV1 extends EvaluationResultV1 {
  readonly method: MethodId;
  /** The memory the evaluation used (retrieval memories hold what they stored). */
  readonly memory: MemoryV1;
}

/** A fresh memory of `method`'s own kind, or of `kind` when one is asked for. */
function methodMemory(
  method: MethodId,
  options: MethodMemoryOptions = {},
  kind: MemoryKind = METHODS[method].memory,
): MemoryV1 {
  return createMemoryOfKind(kind, options);
}

function retrievalWaveSize(episodes: number, opponents: number): number {
  const waves = Math.min(4, episodes);
  return Math.max(1, opponents) * Math.ceil(episodes / waves);
}

export async function evaluateMethod<S, A>(
  options: EvaluateMethodOptions<S, A>,
): Promise<MethodEvaluationV1> {
  if (!(METHOD_IDS as readonly string[]).includes(options.method)) {
    throw new UnknownIdError('method', options.method, METHOD_IDS);
  }
  const method = options.method as MethodId;
  const memory = options.memory ?? methodMemory(method, options.memoryOptions);
  const episodes = options.episodes ?? 16;
  const opponents = options.env.needsOpponent ? (options.opponents ?? []) : [];
  const persistent = memory.commit !== undefined;
  const waveSize =
    options.waveSize ?? (persistent ? retrievalWaveSize(episodes, opponents.length) : undefined);
  const makeOpponent = options.env.needsOpponent
    ? (options.makeOpponent ?? opponentFactory<S, A>(options.env.id))
    : undefined;
  // Everything else is evaluate's own option and goes through as it is.
  const {
    method: _method,
    memory: _memory,
    memoryOptions: _memoryOptions,
    makeOpponent: _makeOpponent,
    opponents: _opponents,
    ...shared
  } = options;
  const result = await evaluate({
    ...shared,
    memory,
    ...(opponents.length > 0 ? { opponents } : {}),
    ...(makeOpponent ? { makeOpponent } : {}),
    episodes,
    attempts: options.attempts ?? 3,
    seed: options.seed ?? 0,
    ...(waveSize === undefined ? {} : { waveSize }),
  });
  return { ...result, method, memory };
}

/** One evaluation suite of a config: a set of opponents on one env variant. */
export interface EvaluationSuiteV1 {
  /** `in-domain`, `out-of-domain`, or `out-of-domain:<option>=<value>` for env variants. */
  readonly name: string;
  readonly domain: 'in' | 'out';
  readonly opponents: readonly string[];
  /** The env options the suite plays with. */
  readonly envOptions: JsonObject;
}

/** The suites a config evaluates: in-domain and out-of-domain opponents, and out-of-domain env variants. */
export function evaluationSuites(config: TrainConfig): EvaluationSuiteV1[] {
  const base = { ...config.env.options, ...config.eval.envOptions } as JsonObject;
  const suites: EvaluationSuiteV1[] = [];
  const twoPlayer = envDefinition(config.env.id).opponents !== undefined;
  if (!twoPlayer || config.eval.inDomain.length > 0) {
    suites.push({ name: 'in-domain', domain: 'in', opponents: config.eval.inDomain, envOptions: base });
  }
  if (twoPlayer && config.eval.outOfDomain.length > 0) {
    suites.push({
      name: 'out-of-domain',
      domain: 'out',
      opponents: config.eval.outOfDomain,
      envOptions: base,
    });
  }
  for (const variant of config.eval.outOfDomainEnvOptions) {
    const label = Object.entries(variant)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(',');
    suites.push({
      name: `out-of-domain:${label}`,
      domain: 'out',
      opponents: twoPlayer ? config.eval.inDomain : [],
      envOptions: { ...base, ...variant } as JsonObject,
    });
  }
  return suites;
}

export interface EvaluateConfigOptions {
  readonly config: TrainConfig;
  /** The policy, or one per suite (e.g. a teacher made for the suite's env options). */
  readonly policy: PolicyV1 | ((suite: EvaluationSuiteV1) => PolicyV1);
  /** Training iteration the evaluation belongs to (changes nothing but the label). */
  readonly iteration?: number;
  /** Play with this memory instead of the method's (one protocol for every method). */
  readonly memory?: MemoryKind;
  /**
   * Wraps the memory created for each suite before the suite is played (e.g. one that swaps the notes of
   * earlier attempts); the suite says which one it is for.
   */
  readonly wrapMemory?: (memory: MemoryV1, suite: EvaluationSuiteV1) => MemoryV1;
  readonly signal?: AbortSignal;
  readonly onEvent?: (suite: string, event: RunnerEvent) => void;
}

export interface ConfigEvaluationV1 {
  readonly suite: EvaluationSuiteV1;
  readonly result: MethodEvaluationV1;
}

/**
 * The task-seed key of a suite: the in-domain and out-of-domain suites use the keys of core's in-loop
 * evaluation, so a run's final evaluation and `evaluateConfig` of its checkpoint play the same tasks.
 */
function suiteSeedKey(name: string): string {
  if (name === 'in-domain') return 'inDomain';
  if (name === 'out-of-domain') return 'outOfDomain';
  return name;
}

/**
 * How `config` plays its evaluations, the options of `evaluateMethod` it decides: the prompt layout of its
 * rollouts (context, style, seats, token limits), whether an attempt after a success is played, and the
 * evaluation's sampling.
 */
export function evalPlayOptions(
  config: TrainConfig,
): Pick<EvaluateMethodOptions, 'context' | 'style' | 'seats' | 'maxTokens' | 'earlyStop' | 'sampling'> {
  return {
    context: config.rollout.context,
    style: config.rollout.style,
    seats: config.rollout.seats,
    maxTokens: config.rollout.maxTokens,
    earlyStop: config.eval.earlyStop,
    sampling: {
      temperature: config.eval.temperature,
      topP: config.eval.topP,
      ...(config.eval.topK > 0 ? { topK: config.eval.topK } : {}),
    },
  };
}

/**
 * Every suite of `config` with its method's memory, its eval sampling and K, on seeds disjoint from
 * training (`<seed>/eval/<suite key>`). The same tasks are played at every call.
 */
export async function evaluateConfig(options: EvaluateConfigOptions): Promise<ConfigEvaluationV1[]> {
  const { config } = options;
  const out: ConfigEvaluationV1[] = [];
  for (const suite of evaluationSuites(config)) {
    const env = createEnvById(config.env.id, suite.envOptions);
    const memory = methodMemory(config.method, memoryLayoutOf(config), options.memory);
    const result = await evaluateMethod({
      env,
      policy: typeof options.policy === 'function' ? options.policy(suite) : options.policy,
      method: config.method,
      memory: options.wrapMemory ? options.wrapMemory(memory, suite) : memory,
      opponents: suite.opponents,
      episodes: config.eval.episodes,
      attempts: config.eval.attempts,
      seed: `${String(config.seed)}/eval/${suiteSeedKey(suite.name)}`,
      ...evalPlayOptions(config),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onEvent ? { onEvent: (e: RunnerEvent) => options.onEvent?.(suite.name, e) } : {}),
    });
    out.push({ suite, result });
  }
  return out;
}
