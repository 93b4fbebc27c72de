/** The end of an attempt: its records, then a reflect turn, the next attempt, or the end of the slot. */

import type { AttemptOutcome, AttemptRecord, MemoryAttemptV1 } from '@mage-rl/spec';
import type { RolloutState } from './rollout-state';
import { type SlotState, slotRecord, startAttempt } from './slot-state';

/**
 * Records the slot's finished attempt. The slot is done after attempt K − 1 or, with early stop, after
 * a success; otherwise a reflecting memory gets a reflect turn first (the attempt is announced once its
 * note is attached) and a non-reflecting one goes straight to the next attempt.
 */
export function finishAttempt<S, A>(
  run: RolloutState<S, A>,
  slot: SlotState<S, A>,
  outcome: AttemptOutcome,
): void {
  const record: AttemptRecord = {
    attempt: slot.attempt,
    outcome,
    return: slot.attemptReturn,
    turns: slot.steps.length,
    invalidTurns: slot.invalidTurns,
  };
  slot.records.push(record);
  const reveal = slot.episode.reveal();
  const finished: MemoryAttemptV1 = {
    attempt: slot.attempt,
    initialText: slot.initialText,
    steps: slot.steps,
    outcome,
    return: slot.attemptReturn,
    ...(reveal === undefined ? {} : { reveal }),
  };
  slot.earlier.push(finished);
  const last = slot.attempt === run.resolved.attempts - 1 || (outcome.success && run.resolved.earlyStop);
  if (!last && run.options.memory.reflects) {
    slot.phase = 'reflect';
    return;
  }
  announceAttempt(run, slot, finished, record);
  if (last) {
    slot.phase = 'done';
    run.pending.push({ type: 'slot-end', record: slotRecord(slot) });
  } else {
    startAttempt(slot, slot.attempt + 1);
  }
}

/** Hands the finished attempt to the memory and queues its `attempt-end` event. */
export function announceAttempt<S, A>(
  run: RolloutState<S, A>,
  slot: SlotState<S, A>,
  finished: MemoryAttemptV1,
  record: AttemptRecord,
): void {
  slot.memory.attemptEnded(finished);
  run.pending.push({ type: 'attempt-end', slot: slot.id, group: slot.group.group, record });
}
