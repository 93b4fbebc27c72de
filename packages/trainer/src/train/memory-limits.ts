import { type MemoryLimits, memoryLimitsOf } from '@mage-rl/learner';
import { memoryBudgetOf, type TrainConfig } from '@mage-rl/recipes';

/** The learners' sizes under a run's `memory.budget` (passed to every learner the run creates). */
export function memoryLimitsOfConfig(config: Pick<TrainConfig, 'memory'>): MemoryLimits {
  return memoryLimitsOf(memoryBudgetOf(config));
}
