/**
 * The methods (the paper's Table 1 baselines) as data: presets over the same machinery.
 */

import type { MetaRewardMode } from '@mage-rl/gigpo';
import type { MemoryKind } from '../wiring';

export const METHOD_IDS = [
  'react',
  'reflexion',
  'memento',
  'a-mem',
  'grpo',
  'gigpo',
  'lamer',
  'mage',
] as const;
export type MethodId = (typeof METHOD_IDS)[number];

export interface MethodPreset {
  readonly id: MethodId;
  readonly description: string;
  /** Whether `mage train` updates the model (the others run in `mage eval` only). */
  readonly trains: boolean;
  /** What earlier attempts put in the context. */
  readonly memory: MemoryKind;
  /** K during training (evaluation always plays `eval.attempts`). */
  readonly attempts: number;
  /** `null` for methods that do not train. */
  readonly metaReward: MetaRewardMode | null;
  readonly estimator: 'gigpo' | 'grpo' | null;
  /**
   * `per-opponent`: a group's slots share task and opponent, opponent ids in anchors (MAGE's
   * agent-specific normalisation). `mixed`: opponents mixed inside groups and anchors (the baselines).
   */
  readonly grouping: 'per-opponent' | 'mixed';
  readonly anchorScope: 'global' | 'local';
  /** KL coefficient to the warm start; `null` keeps the env's default. */
  readonly klCoef: number | null;
  /**
   * Group size multiplier against the run preset's `groupSize`: K = 1 methods use G·3 slots per group
   * for the same sample count as K = 3 methods (the paper: 24 = 8 × 3).
   */
  readonly groupSizeScale: number;
}

const inference = (id: MethodId, memory: MemoryKind, description: string): MethodPreset => ({
  id,
  description,
  trains: false,
  memory,
  attempts: 3,
  metaReward: null,
  estimator: null,
  grouping: 'per-opponent',
  anchorScope: 'global',
  klCoef: null,
  groupSizeScale: 1,
});

export const METHODS: Readonly<Record<MethodId, MethodPreset>> = {
  react: inference('react', 'none', 'no training, no memory: K independent attempts'),
  reflexion: inference('reflexion', 'reflection', 'no training; a note after each failed attempt'),
  memento: inference('memento', 'memento', 'no training; retrieved cases of finished attempts'),
  'a-mem': inference('a-mem', 'a-mem', 'no training; retrieved linked notes'),
  grpo: {
    id: 'grpo',
    description: 'single-episode RL, GRPO advantages (trajectories as samples)',
    trains: true,
    memory: 'none',
    attempts: 1,
    metaReward: 'single',
    estimator: 'grpo',
    grouping: 'mixed',
    anchorScope: 'global',
    klCoef: null,
    groupSizeScale: 3,
  },
  gigpo: {
    id: 'gigpo',
    description: 'single-episode RL, GiGPO advantages (episode + anchor step groups)',
    trains: true,
    memory: 'none',
    attempts: 1,
    metaReward: 'single',
    estimator: 'gigpo',
    grouping: 'mixed',
    anchorScope: 'global',
    klCoef: null,
    groupSizeScale: 3,
  },
  lamer: {
    id: 'lamer',
    description: 'meta-RL with reflection, cumulative meta-reward (LaMer)',
    trains: true,
    memory: 'reflection',
    attempts: 3,
    metaReward: 'cumulative',
    estimator: 'gigpo',
    grouping: 'mixed',
    anchorScope: 'global',
    klCoef: null,
    groupSizeScale: 1,
  },
  mage: {
    id: 'mage',
    description: 'meta-RL with reflection, differential meta-reward, per-opponent grouping (MAGE)',
    trains: true,
    memory: 'reflection',
    attempts: 3,
    metaReward: 'differential',
    estimator: 'gigpo',
    grouping: 'per-opponent',
    anchorScope: 'global',
    klCoef: null,
    groupSizeScale: 1,
  },
};
