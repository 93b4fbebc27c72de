/**
 * The first phase of the warm start: what each env plays with (its configs in every prompt layout the
 * methods train with) and the corpus its non-exploiting teachers produce through the core runner.
 */

import { ConfigError, type EnvDefinitionV1, InvalidArgumentError, throwIfAborted } from '@mage-rl/core';
import {
  buildWarmStartCorpus,
  createEnvById,
  envDefinition,
  type MethodId,
  memoryOf,
  opponentFactory,
  populationOf,
  resolveTrainConfig,
  type TrainConfig,
  type WarmStartExample,
} from '@mage-rl/recipes';
import type { PretrainOptions } from './pretrain';

/** A warm-start layout: its tag in seeds and logs, and the config of the method that trains with it. */
export interface WarmStartLayout {
  readonly tag: 'reflection' | 'none';
  readonly config: TrainConfig;
}

/** One env of a warm start and its configs. */
export interface EnvPlan {
  readonly env: string;
  readonly definition: EnvDefinitionV1;
  /**
   * Reflection memory (or `warmStart.memory`) with K = 3 (MAGE's config: also the one the warm model is
   * evaluated with), then no memory with K = 1 (GRPO's).
   */
  readonly layouts: readonly [WarmStartLayout, WarmStartLayout];
}

type PlanOptions = Pick<PretrainOptions, 'envs' | 'preset' | 'seed' | 'warmStart' | 'envOptions'>;

/**
 * The plan of every env, in the order given. Throws when there is no env, or an env has no warm-start
 * teacher.
 */
export function envPlans(options: PlanOptions): readonly [EnvPlan, ...EnvPlan[]] {
  const [first, ...rest] = options.envs;
  if (first === undefined) throw new InvalidArgumentError('pretrain needs at least one env.');
  for (const env of options.envs) assertWarmStartTeacher(envDefinition(env));
  const memory = options.warmStart?.memory;
  const layout = (env: string, tag: WarmStartLayout['tag'], method: MethodId): WarmStartLayout => ({
    tag,
    config: resolveTrainConfig(
      {
        seed: options.seed,
        ...(options.warmStart ? { warmStart: options.warmStart } : {}),
        ...(options.envOptions ? { env: { options: options.envOptions } } : {}),
        ...(tag === 'reflection' && memory ? { rollout: { memory } } : {}),
      },
      { preset: options.preset, method, env },
    ),
  });
  const plan = (env: string): EnvPlan => ({
    env,
    definition: envDefinition(env),
    layouts: [layout(env, 'reflection', 'mage'), layout(env, 'none', 'grpo')],
  });
  return [plan(first), ...rest.map(plan)];
}

/** A `ConfigError` (start from `--model`) when env `d` has no warm-start teacher. */
export function assertWarmStartTeacher(d: EnvDefinitionV1): void {
  if (d.warmStart) return;
  throw new ConfigError(
    `Env '${d.id}' has no warm-start teacher (its definition has no warmStart), so mage-tiny cannot be warm-started on it. Start from a model of your own with --model <dir> (a mage-tiny or Hugging Face checkpoint directory), or add warmStart (a teacher and the words of its compact text) to its definition.`,
    { path: 'warmStart', context: { env: d.id } },
  );
}

/** What the teachers played: the valid examples of every env and layout, and the teachers' pass@k per env. */
export interface TeacherCorpus {
  readonly examples: readonly WarmStartExample[];
  /** pass@k, k = 1..K, of the teachers in the reflection layout, by env. */
  readonly teacherPass: ReadonlyMap<string, readonly number[]>;
}

/** The teachers of every env play in every layout; one progress step per env and layout. */
export async function teacherCorpus(
  plans: readonly EnvPlan[],
  options: Pick<PretrainOptions, 'seed' | 'signal' | 'onProgress'>,
  log: (line: string) => void,
): Promise<TeacherCorpus> {
  const examples: WarmStartExample[] = [];
  const teacherPass = new Map<string, number[]>();
  let done = 0;
  const total = plans.length * 2;
  for (const { env, layouts } of plans) {
    for (const { tag, config: c } of layouts) {
      throwIfAborted(options.signal);
      const ws = c.warmStart;
      const population = populationOf(c);
      const makeOpponent = opponentFactory(env);
      const corpus = await buildWarmStartCorpus({
        env: createEnvById(env, c.env.options),
        population,
        makeOpponent,
        groups: ws.groups,
        groupSize: ws.groupSize,
        iterations: ws.iterations,
        attempts: c.rollout.attempts,
        memory: memoryOf(c),
        context: c.rollout.context,
        style: c.rollout.style,
        seats: c.rollout.seats,
        earlyStop: ws.earlyStop,
        seed: `${options.seed}/warm-start/${env}/${tag}`,
        teacherOptions: {
          noise: ws.noise,
          mistakes: ws.mistakes,
          adaptive: ws.adaptive,
          ...(ws.readerOpening === undefined ? {} : { readerOpening: ws.readerOpening }),
        },
        ...(options.signal ? { signal: options.signal } : {}),
      });
      examples.push(...corpus.examples.filter((e) => e.valid));
      if (tag === 'reflection') {
        teacherPass.set(
          env,
          corpus.metrics.overall.perAttempt.map((a) => a.passAtK.rate),
        );
      }
      options.onProgress?.({ phase: 'corpus', done: ++done, total });
      log(`corpus ${env}/${tag}: ${corpus.examples.length} examples`);
    }
  }
  return { examples, teacherPass };
}
