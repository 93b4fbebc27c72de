/**
 * First pass of `computeAdvantageColumns`: validates the rows and interns groups, slots and attempts as
 * small integers, so that later passes work on typed columns.
 */

import { at, InvalidArgumentError } from '@mage-rl/spec';
import type { AdvantageRowInput } from './types';

/** A slot (meta-episode); its attempts 0..attempts−1 have the ids offset..offset+attempts−1. */
export interface SlotSpan {
  readonly group: number;
  readonly offset: number;
  readonly attempts: number;
}

export interface RowIndex {
  readonly nGroups: number;
  /** Slots in order of first appearance. */
  readonly slots: readonly SlotSpan[];
  /** Attempt ids over all slots (slot by slot, every attempt up to the slot's last one). */
  readonly nAttempts: number;
  /** Highest attempt number of any row. */
  readonly maxAttempt: number;
  readonly rowGroup: Int32Array;
  readonly rowSlot: Int32Array;
  /** Attempt id of every row. */
  readonly rowAttempt: Int32Array;
  /** Attempt id of every play row, −1 for a reflect row. */
  readonly playAttempt: Int32Array;
}

interface SlotState {
  readonly index: number;
  readonly group: number;
  last: number;
  offset: number;
}

function badRow(index: number, message: string, row: unknown): never {
  throw new InvalidArgumentError(`computeAdvantages: rows[${index}] ${message}`, { context: { index, row } });
}

function checkFields(i: number, row: AdvantageRowInput): void {
  if (!(Number.isInteger(row.attempt) && row.attempt >= 0))
    badRow(i, 'attempt must be an integer >= 0.', row);
  if (row.phase !== 'play' && row.phase !== 'reflect') badRow(i, "phase must be 'play' or 'reflect'.", row);
  if (!Number.isFinite(row.reward)) badRow(i, 'reward must be a finite number.', row);
  if (typeof row.anchor !== 'string') badRow(i, 'anchor must be a string.', row);
  if (!(row.responseTokens >= 0)) badRow(i, 'responseTokens must be a number >= 0.', row);
}

/**
 * Validates every row (throwing `InvalidArgumentError` with the row index) and numbers groups, slots and
 * attempts. Rows of a slot must arrive in chronological order and all in one group.
 */
export function indexRows(rows: readonly AdvantageRowInput[]): RowIndex {
  const groups = new Map<string, number>();
  const slotsByKey = new Map<string, SlotState>();
  const slots: SlotState[] = [];
  const rowSlots: SlotState[] = [];
  const rowGroup = new Int32Array(rows.length);
  const rowSlot = new Int32Array(rows.length);
  let maxAttempt = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = at(rows, i);
    checkFields(i, row);
    let g = groups.get(row.group);
    if (g === undefined) {
      if (typeof row.group !== 'string') badRow(i, 'group must be a string.', row);
      g = groups.size;
      groups.set(row.group, g);
    }
    let slot = slotsByKey.get(row.slot);
    if (slot === undefined) {
      if (typeof row.slot !== 'string') badRow(i, 'slot must be a string.', row);
      slot = { index: slots.length, group: g, last: row.attempt, offset: 0 };
      slotsByKey.set(row.slot, slot);
      slots.push(slot);
    } else {
      if (slot.group !== g)
        badRow(i, `belongs to slot '${row.slot}' which already appeared in another group.`, row);
      if (row.attempt < slot.last) {
        badRow(
          i,
          `attempt ${row.attempt} comes after attempt ${slot.last} of slot '${row.slot}': rows must be chronological.`,
          row,
        );
      }
      slot.last = row.attempt;
    }
    if (row.attempt > maxAttempt) maxAttempt = row.attempt;
    rowGroup[i] = g;
    rowSlot[i] = slot.index;
    rowSlots.push(slot);
  }
  let nAttempts = 0;
  for (const slot of slots) {
    slot.offset = nAttempts;
    nAttempts += slot.last + 1;
  }
  const rowAttempt = new Int32Array(rows.length);
  const playAttempt = new Int32Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = at(rows, i);
    const a = at(rowSlots, i).offset + row.attempt;
    rowAttempt[i] = a;
    playAttempt[i] = row.phase === 'play' ? a : -1;
  }
  return {
    nGroups: groups.size,
    slots: slots.map(({ group, offset, last }) => ({ group, offset, attempts: last + 1 })),
    nAttempts,
    maxAttempt,
    rowGroup,
    rowSlot,
    rowAttempt,
    playAttempt,
  };
}
