import { type MemorySlotInfoV1, type PolicyV1, runMetaEpisodes } from '@mage-rl/core';
import { createNimEnv, nimOpponents } from '@mage-rl/core/testing';
import { createMemory } from '@mage-rl/reflection';
import { describe, expect, it } from 'vitest';
import { foreignNoteDonors } from './foreign-notes';

/** Takes one stone; its note names the slot and attempt it was written in. */
const takeOne: PolicyV1 = {
  specificationVersion: 'v1',
  id: 'take-one',
  async generate(requests) {
    return requests.map((r) => ({
      text:
        r.phase === 'reflect'
          ? `<remark>${r.facts?.slot} ${r.facts?.attempt}</remark>`
          : '<action>1</action>',
      promptTokens: [],
      tokens: [],
      logprobs: [],
      finishReason: 'stop' as const,
    }));
  },
};

const batchOf = (opponents: string[]) =>
  runMetaEpisodes({
    env: createNimEnv(),
    policy: takeOne,
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
