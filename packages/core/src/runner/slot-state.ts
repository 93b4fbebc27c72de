/**
 * The state of one slot (one meta-episode of K attempts) while the runner plays it, and the records it
 * produces. Plain data: the runner's phases read and update it.
 */

import type {
  AttemptRecord,
  EnvEpisodeV1,
  EnvObservationV1,
  GroupRecord,
  MemoryAttemptV1,
  MemorySlotV1,
  MemoryStepV1,
  RowRecord,
  SlotRecord,
} from '@mage-rl/spec';
import { RolloutError } from '@mage-rl/spec';
import type { Rng } from '../rng';

export interface SlotState<S, A> {
  readonly id: string;
  readonly group: GroupRecord;
  readonly opponentId: string | null;
  /** `…/g<g>/s<s>`: the source of the slot's per-request sampling seeds. */
  readonly rng: Rng;
  readonly episode: EnvEpisodeV1<S, A>;
  readonly memory: MemorySlotV1;
  /** Every row of the slot so far, in order. */
  readonly rows: RowRecord[];
  /** One record per finished attempt. */
  readonly records: AttemptRecord[];
  /** The finished attempts as the memory sees them (parallel to `records`). */
  readonly earlier: MemoryAttemptV1[];
  attempt: number;
  /** `reflect`: the next turn writes the note after the last finished attempt. */
  phase: 'play' | 'reflect' | 'done';
  initialText: string;
  observation: EnvObservationV1;
  steps: MemoryStepV1[];
  attemptReturn: number;
  invalidTurns: number;
}

/** Restarts the slot's episode at `attempt` and clears the per-attempt state. */
export function startAttempt<S, A>(slot: SlotState<S, A>, attempt: number): void {
  slot.attempt = attempt;
  slot.phase = 'play';
  slot.observation = slot.episode.reset(attempt);
  slot.initialText = slot.episode.initialText();
  slot.steps = [];
  slot.attemptReturn = 0;
  slot.invalidTurns = 0;
}

/** The slot's record so far; its task names the slot's own opponent. */
export function slotRecord<S, A>(slot: SlotState<S, A>): SlotRecord {
  return {
    slot: slot.id,
    group: slot.group.group,
    task: { ...slot.group.task, opponentId: slot.opponentId },
    attempts: slot.records.slice(),
  };
}

/** Sampling seed of a request of the current attempt: `…/a<k>/<label>` with label `t<turn>` or `reflect`. */
export function requestSeed<S, A>(slot: SlotState<S, A>, label: string): number {
  return slot.rng.split(`a${slot.attempt}`).split(label).nextUint32();
}

/** The last finished attempt (the one a reflect turn writes about), its record and their index. */
export function lastFinished<S, A>(
  slot: SlotState<S, A>,
): { attempt: MemoryAttemptV1; record: AttemptRecord; index: number } {
  const index = slot.earlier.length - 1;
  const attempt = slot.earlier[index];
  const record = slot.records[index];
  if (attempt === undefined || record === undefined) {
    throw new RolloutError('RUNNER_FAILURE', `Slot ${slot.id} has no finished attempt to reflect on.`);
  }
  return { attempt, record, index };
}
