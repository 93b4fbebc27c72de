/**
 * The foreign-notes control of a memory benefit (architecture/trainer.md): which note each meta-episode
 * of a second evaluation shows in place of its own, taken from the first evaluation's reflect turns.
 */

import {
  InvalidArgumentError,
  type MemorySlotInfoV1,
  type MetaEpisodeBatchRecord,
  type SlotRecord,
} from '@mage-rl/core';
import type { ForeignNoteV1 } from '@mage-rl/reflection';

export type NoteDonor = (info: MemorySlotInfoV1, attempt: number) => ForeignNoteV1 | undefined;

/**
 * Donors from a finished evaluation: the note a meta-episode wrote after earlier attempt `attempt` is
 * replaced by the one written after the same attempt in the next meta-episode (in slot order, cyclic) that
 * wrote one and played another opponent — another task when every donor played the same opponent.
 * Meta-episodes are matched by slot id, so the second evaluation must use the same seed and tasks.
 */
export function foreignNoteDonors(batch: MetaEpisodeBatchRecord): NoteDonor {
  const slots = batch.slots;
  const index = new Map(slots.map((s, i) => [s.slot, i]));
  if (index.size !== slots.length) {
    throw new InvalidArgumentError(
      'Foreign notes need one meta-episode per slot id; this evaluation ran in waves that reuse slot ids.',
    );
  }
  const notes = new Map<string, ForeignNoteV1>();
  for (const row of batch.rows) {
    if (row.phase !== 'reflect') continue;
    const before = slots[index.get(row.slot) ?? -1]?.attempts[row.attempt - 1];
    if (!before) continue;
    notes.set(`${row.slot}#${row.attempt - 1}`, {
      outcome: before.outcome,
      response: row.responseText,
      responseTokens: row.responseTokens,
    });
  }
  const otherOpponent = (a: SlotRecord, b: SlotRecord) => a.task.opponentId !== b.task.opponentId;
  const otherTask = (a: SlotRecord, b: SlotRecord) =>
    a.task.seed !== b.task.seed || otherOpponent(a, b) || a.task.seat !== b.task.seat;
  return (info, attempt) => {
    const i = index.get(info.slot);
    if (i === undefined) return undefined;
    const self = slots[i] as SlotRecord;
    const wrote = (k: number) => notes.has(`${slots[k]?.slot}#${attempt}`);
    const candidates = Array.from({ length: slots.length - 1 }, (_, step) => (i + 1 + step) % slots.length);
    const differs = candidates.some((k) => wrote(k) && otherOpponent(self, slots[k] as SlotRecord))
      ? otherOpponent
      : otherTask;
    const donor = candidates.find((k) => wrote(k) && differs(self, slots[k] as SlotRecord));
    return donor === undefined ? undefined : notes.get(`${slots[donor]?.slot}#${attempt}`);
  };
}
