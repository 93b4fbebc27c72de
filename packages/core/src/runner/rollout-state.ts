/** The state of one run of `iterateMetaEpisodes`: its options, groups, slots, tick counter and events. */

import type { GroupRecord, MetaEpisodeBatchRecord } from '@mage-rl/spec';
import type { ResolvedRunOptions, RunMetaEpisodesOptions, RunnerEvent } from './options';
import { type SlotState, slotRecord } from './slot-state';

export interface RolloutState<S, A> {
  readonly options: RunMetaEpisodesOptions<S, A>;
  readonly resolved: ResolvedRunOptions;
  readonly groups: readonly GroupRecord[];
  /** Every slot of every group, in group order. */
  readonly slots: readonly SlotState<S, A>[];
  /** `attempt-end` and `slot-end` events of the current tick, yielded after its `turn-end`. */
  readonly pending: RunnerEvent[];
  tick: number;
  policyCalls: number;
}

/** The batch record of everything played so far (the final record once every slot is done). */
export function batchRecord<S, A>(run: RolloutState<S, A>): MetaEpisodeBatchRecord {
  return {
    iteration: run.resolved.iteration,
    attempts: run.resolved.attempts,
    groups: run.groups,
    slots: run.slots.map(slotRecord),
    rows: run.slots.flatMap((s) => s.rows),
  };
}
