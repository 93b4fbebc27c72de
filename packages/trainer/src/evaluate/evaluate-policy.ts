/**
 * Evaluating a policy by name: the method and memory it plays with (a run's own unless given), the
 * config of its prompt layout and evaluation sampling, the opponents (the env's evaluation suites unless
 * given), then `evaluateWithMemory` and the policy freed.
 */

import {
  METHODS,
  type MemoryKind,
  type MethodId,
  type RunPresetId,
  resolveTrainConfig,
  type TrainConfigInput,
} from '@mage-rl/recipes';
import { type LoadPolicyOptions, loadPolicy, trainedWith } from './load-policy';
import {
  type EvaluateWithMemoryOptions,
  evaluateWithMemory,
  type MemoryEvaluationV1,
} from './memory-benefit';

export interface EvaluatePolicyOptions
  extends Pick<LoadPolicyOptions, 'policy' | 'env' | 'model' | 'apiKey'>,
    Pick<EvaluateWithMemoryOptions, 'episodes' | 'attempts' | 'seed' | 'baseline' | 'foreignNotes'> {
  /** The method whose prompts the policy plays with; default: a run's own, else `reflexion`. */
  readonly method?: MethodId;
  /** Default: the memory a run trained with, else the method's. */
  readonly memory?: MemoryKind;
  /** The run preset of the prompt layout and evaluation sampling. */
  readonly preset: RunPresetId;
  /** Config values over the preset (an env's `url`, say). */
  readonly overrides?: TrainConfigInput;
  /** Default: the in-domain and out-of-domain opponents of the env's evaluation protocol. */
  readonly opponents?: readonly string[];
}

export interface PolicyEvaluationV1 extends MemoryEvaluationV1 {
  readonly method: MethodId;
  readonly memory: MemoryKind;
  readonly opponents: readonly string[];
}

export async function evaluatePolicy(options: EvaluatePolicyOptions): Promise<PolicyEvaluationV1> {
  const { env, preset } = options;
  // Without a method, a run plays with the method and memory it trained with.
  const trained = options.method === undefined ? await trainedWith(options.policy) : undefined;
  const method = trained?.method ?? options.method ?? 'reflexion';
  const config = resolveTrainConfig(options.overrides ?? {}, { preset, method, env });
  const opponents = options.opponents ?? [...config.eval.inDomain, ...config.eval.outOfDomain];
  const memory = options.memory ?? trained?.memory ?? METHODS[method].memory;
  const { policy, dispose } = await loadPolicy({
    policy: options.policy,
    env,
    envOptions: config.env.options,
    style: config.rollout.style,
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
  });
  try {
    const evaluation = await evaluateWithMemory({
      config,
      policy,
      method,
      memory,
      opponents,
      episodes: options.episodes,
      attempts: options.attempts,
      seed: options.seed,
      ...(options.baseline === undefined ? {} : { baseline: options.baseline }),
      ...(options.foreignNotes === undefined ? {} : { foreignNotes: options.foreignNotes }),
    });
    return { method, memory, opponents, ...evaluation };
  } finally {
    await dispose();
  }
}
