/**
 * An evaluation with a memory and, on the same tasks, with none: what the memory is worth to the policy,
 * paired over the meta-episodes (core's `pairedPassBenefit`).
 */

import { type PairedPassBenefitV1, type PolicyV1, pairedPassBenefit } from '@mage-rl/core';
import {
  createEnvById,
  createMemoryOfKind,
  evaluateMethod,
  type MemoryKind,
  type MethodEvaluationV1,
  memoryLayoutOf,
  type TrainConfig,
} from '@mage-rl/recipes';
import { evalPlayOptions } from './eval-play';

export interface EvaluateWithMemoryOptions {
  /** Env, its options, prompt layout and evaluation sampling. */
  readonly config: TrainConfig;
  readonly policy: PolicyV1;
  /** The method whose prompts the policy plays with. */
  readonly method: TrainConfig['method'];
  readonly memory: MemoryKind;
  readonly opponents: readonly string[];
  readonly episodes: number;
  readonly attempts: number;
  readonly seed: number;
  /** Also play the same tasks with no memory (when `memory` is not `none`). Default true. */
  readonly baseline?: boolean;
}

export interface MemoryEvaluationV1 {
  readonly result: MethodEvaluationV1;
  /** The same tasks with no memory, and the paired difference; absent without a baseline. */
  readonly withoutMemory?: { readonly result: MethodEvaluationV1; readonly benefit: PairedPassBenefitV1 };
}

export async function evaluateWithMemory(options: EvaluateWithMemoryOptions): Promise<MemoryEvaluationV1> {
  const { config } = options;
  // Both runs play the same tasks (same seed, opponents, episodes), so their difference is paired.
  const run = (kind: MemoryKind) =>
    evaluateMethod({
      env: createEnvById(config.env.id, { ...config.env.options, ...config.eval.envOptions }),
      policy: options.policy,
      method: options.method,
      opponents: options.opponents,
      episodes: options.episodes,
      attempts: options.attempts,
      memory: createMemoryOfKind(kind, memoryLayoutOf(config)),
      ...evalPlayOptions(config),
      seed: options.seed,
    });
  const result = await run(options.memory);
  if (options.memory === 'none' || options.baseline === false) return { result };
  const without = await run('none');
  return {
    result,
    withoutMemory: {
      result: without,
      benefit: pairedPassBenefit(result.batch.slots, without.batch.slots, options.attempts),
    },
  };
}
