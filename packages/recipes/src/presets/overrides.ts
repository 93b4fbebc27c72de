/**
 * Partial configs from the ways a user names values: a dotted path and its value (`ppo.lr` = 3e-5), and
 * the paper's ablation switches, each an ordinary value of its config section.
 */

import type { TrainConfig, TrainConfigInput } from './schema';

/** `['a', 'b', 'c']`, value → `{ a: { b: { c: value } } }`. */
export function overrideAt(path: readonly string[], value: unknown): TrainConfigInput {
  let out: unknown = value;
  for (const key of [...path].reverse()) out = { [key]: out };
  return out as TrainConfigInput;
}

/** The ablation switches; an absent (or undefined) one leaves the config alone. */
export interface AblationSwitches {
  readonly iterations?: number | undefined;
  /** K, attempts per meta-episode. */
  readonly attempts?: number | undefined;
  readonly memory?: TrainConfig['rollout']['memory'] | undefined;
  readonly earlyStop?: boolean | undefined;
  readonly metaReward?: TrainConfig['advantage']['metaReward'] | undefined;
  readonly estimator?: TrainConfig['advantage']['estimator'] | undefined;
  readonly grouping?: TrainConfig['advantage']['grouping'] | undefined;
  readonly anchorScope?: TrainConfig['advantage']['anchorScope'] | undefined;
  /** A population preset, with its fixed opponent (`null` unless the preset is `fixed`). */
  readonly population?: Pick<TrainConfig['population'], 'preset' | 'fixedOpponent'> | undefined;
  readonly populationMode?: TrainConfig['population']['mode'] | undefined;
}

/** The switches as a partial config: each in its section, sections without a switch left out. */
export function switchOverrides(s: AblationSwitches): TrainConfigInput {
  const defined = (part: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(part).filter(([, v]) => v !== undefined));
  const sections: Record<string, Record<string, unknown>> = {
    rollout: defined({ attempts: s.attempts, memory: s.memory, earlyStop: s.earlyStop }),
    advantage: defined({
      metaReward: s.metaReward,
      estimator: s.estimator,
      grouping: s.grouping,
      anchorScope: s.anchorScope,
    }),
    population: defined({ ...s.population, mode: s.populationMode }),
    train: defined({ iterations: s.iterations }),
  };
  return Object.fromEntries(
    Object.entries(sections).filter(([, part]) => Object.keys(part).length > 0),
  ) as TrainConfigInput;
}
