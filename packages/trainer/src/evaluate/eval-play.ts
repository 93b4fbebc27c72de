/** How a config plays its evaluations: the prompt layout of its rollouts and its evaluation sampling. */

import type { EvaluateMethodOptions, TrainConfig } from '@mage-rl/recipes';

/** The options of `evaluateMethod` that `config` decides: context, style, seats, token limits, sampling. */
export function evalPlayOptions(
  config: TrainConfig,
): Pick<EvaluateMethodOptions, 'context' | 'style' | 'seats' | 'maxTokens' | 'sampling'> {
  return {
    context: config.rollout.context,
    style: config.rollout.style,
    seats: config.rollout.seats,
    maxTokens: config.rollout.maxTokens,
    sampling: {
      temperature: config.eval.temperature,
      topP: config.eval.topP,
      ...(config.eval.topK > 0 ? { topK: config.eval.topK } : {}),
    },
  };
}
