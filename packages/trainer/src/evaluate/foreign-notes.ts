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
 * Meta-episodes are matched by slot id, so the second evaluation must use the same seed and tasks. The
 * finished evaluation may be another policy's on those tasks: its notes then name moves this policy did
 * not make, which a policy that plays a fixed sequence never sees in its own (`foreignNoteSwaps`).
 */
export function foreignNoteDonors(batch: MetaEpisodeBatchRecord): NoteDonor {
  const { donorOf } = donorNotes(batch);
  return (info, attempt) => donorOf(info.slot, attempt);
}

/** How many of a finished evaluation's notes its foreign-notes run replaces, and how many by the same text. */
export interface ForeignNoteSwapsV1 {
  /** Notes with a donor: each note a meta-episode wrote before a later attempt, when another wrote one. */
  readonly replaced: number;
  /**
   * Of those, the donor notes that read word for word as the replaced one (spacing aside) after the same
   * outcome. Such a swap shows the policy the same facts, so own minus foreign notes cannot see reading
   * there: a policy that opens doors in a fixed order fails the same first door in every task and writes
   * the same note in all of them.
   */
  readonly sameText: number;
}

/**
 * The swaps of `foreignNoteDonors(donors)` in the evaluation `own` (by default its own notes are the
 * donors), and the meta-episodes with at least one swapped note that differs from their own: the only ones
 * where own minus foreign notes can show reading.
 */
export function foreignNoteSwaps(
  own: MetaEpisodeBatchRecord,
  donors: MetaEpisodeBatchRecord = own,
): {
  readonly swaps: ForeignNoteSwapsV1;
  readonly differing: ReadonlySet<string>;
} {
  const ownNotes = donorNotes(own);
  const { notes } = ownNotes;
  const { donorOf } = donors === own ? ownNotes : donorNotes(donors);
  const text = (s: string) => s.replace(/\s+/g, ' ').trim();
  let replaced = 0;
  let sameText = 0;
  const differing = new Set<string>();
  for (const [key, own] of notes) {
    const cut = key.lastIndexOf('#');
    const slot = key.slice(0, cut);
    const donor = donorOf(slot, Number(key.slice(cut + 1)));
    if (!donor) continue;
    replaced++;
    if (donor.outcome.label === own.outcome.label && text(donor.response) === text(own.response)) sameText++;
    else differing.add(slot);
  }
  return { swaps: { replaced, sameText }, differing };
}

/**
 * The notes of a finished evaluation by `slot#attempt`, and the donor note of each slot and earlier attempt
 * (the rule of `foreignNoteDonors`).
 */
function donorNotes(batch: MetaEpisodeBatchRecord): {
  readonly notes: ReadonlyMap<string, ForeignNoteV1>;
  readonly donorOf: (slot: string, attempt: number) => ForeignNoteV1 | undefined;
} {
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
  const donorOf = (slot: string, attempt: number) => {
    const i = index.get(slot);
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
  return { notes, donorOf };
}
