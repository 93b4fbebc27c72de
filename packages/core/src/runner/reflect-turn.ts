/** Applying a reflect turn's response: the note joins the finished attempt, then the next attempt starts. */

import type { MemoryReflectionV1, RowRecord } from '@mage-rl/spec';
import { reflectAnchor } from '@mage-rl/spec';
import { guardSlot } from './failures';
import { announceAttempt } from './finish-attempt';
import { noteRecall } from './note-recall';
import type { RolloutState } from './rollout-state';
import type { ResponseRowBase } from './rows';
import { lastFinished, type SlotState, startAttempt } from './slot-state';

/**
 * Parses the reflection (a throwing memory is a `RUNNER_FAILURE`), records the reflect row, attaches the
 * note to the finished attempt, announces that attempt and resets the env for the next one.
 */
export function applyReflectTurn<S, A>(
  run: RolloutState<S, A>,
  slot: SlotState<S, A>,
  base: ResponseRowBase,
  prompt: string,
): RowRecord {
  const text = base.responseText;
  const parsed = guardSlot(
    run,
    slot,
    'memory',
    `Memory '${run.options.memory.id}' failed to parse a reflection`,
    () => slot.memory.parseReflection(text),
  );
  const last = lastFinished(slot);
  const row: RowRecord = {
    ...base,
    attempt: slot.attempt + 1,
    turn: -1,
    phase: 'reflect',
    anchor: reflectAnchor(slot.opponentId ?? undefined),
    reward: 0,
    valid: parsed.valid,
    noteRecall: parsed.valid ? noteRecall(parsed.note, last.attempt) : 0,
  };
  slot.rows.push(row);
  const reflection: MemoryReflectionV1 = {
    prompt,
    response: text,
    responseTokens: base.responseTokens,
    note: parsed.note,
    valid: parsed.valid,
  };
  const finished = { ...last.attempt, reflection };
  slot.earlier[last.index] = finished;
  const record = { ...last.record, reflection: parsed.note };
  slot.records[last.index] = record;
  announceAttempt(run, slot, finished, record);
  guardSlot(run, slot, 'env', `Env '${run.options.env.id}' failed to reset`, () =>
    startAttempt(slot, slot.attempt + 1),
  );
  return row;
}
