import { type MemorySlotInfoV1, type PolicyV1, runMetaEpisodes } from '@mage-rl/core';
import { createNimEnv, nimOpponents } from '@mage-rl/core/testing';
import { createMemory } from '@mage-rl/reflection';
import { describe, expect, it } from 'vitest';
import { foreignNoteDonors, foreignNoteSwaps } from './foreign-notes';

/** Takes one stone; its note is `note(slot, attempt)` of the attempt it was written after. */
const takesOne = (note: (slot: string, attempt: number) => string): PolicyV1 => ({
  specificationVersion: 'v1',
  id: 'take-one',
  async generate(requests) {
    return requests.map((r) => ({
      text:
        r.phase === 'reflect'
          ? `<remark>${note(String(r.facts?.slot), Number(r.facts?.attempt))}</remark>`
          : '<action>1</action>',
      promptTokens: [],
      tokens: [],
      logprobs: [],
      finishReason: 'stop' as const,
    }));
  },
});

/** Its note names the slot and attempt it was written in. */
const takeOne = takesOne((slot, attempt) => `${slot} ${attempt}`);

const batchOf = (opponents: string[], policy = takeOne) =>
  runMetaEpisodes({
    env: createNimEnv(),
    policy,
    memory: createMemory({ mode: 'reflection' }),
    opponents,
    makeOpponent: nimOpponents(),
    groups: 4,
    groupSize: 2,
    seed: 3,
    earlyStop: false,
  });

const infoOf = (slot: string) => ({ slot }) as MemorySlotInfoV1;

describe('foreignNoteDonors', () => {
  it("gives each meta-episode the same attempt's note of the next one that played another opponent", async () => {
    const batch = await batchOf(['first-legal', 'random']);
    const donor = foreignNoteDonors(batch);
    const opponentOf = new Map(batch.slots.map((s) => [s.slot, s.task.opponentId]));
    for (const s of batch.slots) {
      for (const attempt of [0, 1]) {
        const note = donor(infoOf(s.slot), attempt);
        const from = /<remark>(\S+) (\d)<\/remark>/.exec(note?.response ?? '');
        expect(from, `${s.slot} ${attempt}`).not.toBeNull();
        expect(opponentOf.get(from?.[1] as string)).not.toBe(s.task.opponentId);
        // The note written before attempt k + 1 is the one about attempt k.
        expect(Number(from?.[2])).toBe(attempt + 1);
      }
    }
    // The last attempt has no note after it; an unknown slot keeps its own.
    expect(donor(infoOf('g0/s0'), 2)).toBeUndefined();
    expect(donor(infoOf('g9/s9'), 0)).toBeUndefined();
  });

  it('takes another task of the same opponent when every meta-episode played one opponent', async () => {
    const batch = await batchOf(['first-legal']);
    const donor = foreignNoteDonors(batch);
    const taskOf = new Map(batch.slots.map((s) => [s.slot, `${s.task.seed}/${s.task.seat}`]));
    for (const s of batch.slots) {
      const from = /<remark>(\S+) /.exec(donor(infoOf(s.slot), 0)?.response ?? '')?.[1] as string;
      expect(taskOf.get(from)).not.toBe(taskOf.get(s.slot));
    }
  });
});

describe('foreignNoteSwaps', () => {
  it('counts every note with a donor, and none as the same when each note names its own slot', async () => {
    const batch = await batchOf(['first-legal', 'random']);
    const notes = batch.rows.filter((r) => r.phase === 'reflect').length;
    expect(notes).toBeGreaterThan(0);
    const { swaps, differing } = foreignNoteSwaps(batch);
    expect(swaps).toEqual({ replaced: notes, sameText: 0 });
    expect(differing).toEqual(new Set(batch.slots.map((s) => s.slot)));
  });

  it('counts a donor note that reads as the own one after the same outcome (spacing aside)', async () => {
    const batch = await batchOf(['first-legal']);
    // Every meta-episode writes the same note (spacing aside) after a loss: every swap shows the same facts.
    const note = (slot: string) => (slot.endsWith('0') ? '<remark>x  y</remark>' : '<remark>x y</remark>');
    const withOutcome = (label: 'loss' | 'win') => ({
      ...batch,
      slots: batch.slots.map((s, i) => ({
        ...s,
        attempts: s.attempts.map((a) => ({
          ...a,
          outcome: { ...a.outcome, label: i === 0 ? label : 'loss' },
        })),
      })),
      rows: batch.rows.map((r) => (r.phase === 'reflect' ? { ...r, responseText: note(r.slot) } : r)),
    });
    const { swaps: all, differing } = foreignNoteSwaps(withOutcome('loss'));
    expect(all.replaced).toBeGreaterThan(0);
    expect(all.sameText).toBe(all.replaced);
    expect(differing.size).toBe(0);
    // The first meta-episode's notes now follow wins: a swap to or from it no longer shows the same facts.
    const first = batch.slots[0]?.slot as string;
    const donor = foreignNoteDonors(batch); // its notes name the slot that wrote them
    const touchFirst = batch.rows.filter((r) => {
      if (r.phase !== 'reflect') return false;
      const from = /<remark>(\S+) /.exec(donor(infoOf(r.slot), r.attempt - 1)?.response ?? '')?.[1];
      return (r.slot === first) !== (from === first);
    }).length;
    expect(touchFirst).toBeGreaterThan(0);
    const won = foreignNoteSwaps(withOutcome('win'));
    expect(won.swaps.sameText).toBe(all.replaced - touchFirst);
    expect(won.differing.has(first)).toBe(true);
  });

  it("takes another evaluation's notes of the same tasks as donors: another policy's", async () => {
    const own = await batchOf(['first-legal', 'random']);
    const notes = own.rows.filter((r) => r.phase === 'reflect').length;
    const other = await batchOf(
      ['first-legal', 'random'],
      takesOne(() => 'the same everywhere'),
    );
    const donor = foreignNoteDonors(other);
    for (const s of own.slots)
      expect(donor(infoOf(s.slot), 0)?.response).toBe('<remark>the same everywhere</remark>');
    expect(foreignNoteSwaps(own, other).swaps).toEqual({ replaced: notes, sameText: 0 });
    // Its own evaluation is the default donor; a copy of it gives the same swaps.
    expect(foreignNoteSwaps(own, { ...own })).toEqual(foreignNoteSwaps(own));
  });
});
