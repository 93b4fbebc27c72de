import { type PolicyV1, type RowRecord, runMetaEpisodes } from '@mage-rl/core';
import { createNimEnv, nimOpponents } from '@mage-rl/core/testing';
import { describe, expect, it } from 'vitest';
import { withForeignNotes } from './foreign-notes';
import { createMemory } from './modes';

/** Takes one stone; its note names the slot it was written in, so a prompt shows whose note it carries. */
const takeOne: PolicyV1 = {
  specificationVersion: 'v1',
  id: 'take-one',
  async generate(requests) {
    return requests.map((r) => ({
      text: r.phase === 'reflect' ? `<remark>mine ${r.facts?.slot ?? '?'}</remark>` : '<action>1</action>',
      promptTokens: [],
      tokens: r.phase === 'reflect' ? [7] : [1],
      logprobs: r.phase === 'reflect' ? [-1] : [-0.1],
      finishReason: 'stop' as const,
    }));
  },
};

const play = (layout: 'turn' | 'transcript', foreign: boolean) =>
  runMetaEpisodes({
    env: createNimEnv(),
    policy: takeOne,
    memory: foreign
      ? withForeignNotes(createMemory({ mode: 'reflection' }), (info, attempt) =>
          attempt === 0
            ? {
                outcome: { success: true, draw: false, truncated: false, label: 'win' },
                response: `<remark>foreign for ${info.slot}</remark>`,
                responseTokens: [9],
              }
            : undefined,
        )
      : createMemory({ mode: 'reflection' }),
    opponents: ['first-legal'],
    makeOpponent: nimOpponents(),
    groups: 2,
    groupSize: 1,
    context: layout,
    seed: 5,
    earlyStop: false,
  });

const prompt = (rows: readonly RowRecord[], attempt: number, phase: 'play' | 'reflect') =>
  rows.find((r) => r.slot === 'g1/s0' && r.attempt === attempt && r.phase === phase)?.promptText ?? '';

describe('withForeignNotes', () => {
  for (const layout of ['turn', 'transcript'] as const) {
    it(`shows the donor's note and result in place of the slot's own (${layout} layout)`, async () => {
      const own = await play(layout, false);
      const foreign = await play(layout, true);
      expect(prompt(own.rows, 1, 'play')).toContain('mine g1/s0');
      const second = prompt(foreign.rows, 1, 'play');
      expect(second).toContain('foreign for g1/s0');
      expect(second).not.toContain('mine g1/s0');
      // Attempt 2's own note stays (the donor gives none for it); attempt 1's is still foreign.
      const third = prompt(foreign.rows, 2, 'play');
      expect(third).toContain('foreign for g1/s0');
      expect(third).toContain('mine g1/s0');
      // The policy still writes its own notes, and reflects on the attempt it just played.
      expect(foreign.rows.filter((r) => r.phase === 'reflect')).toHaveLength(
        own.rows.filter((r) => r.phase === 'reflect').length,
      );
      expect(prompt(foreign.rows, 1, 'reflect')).not.toContain('foreign');
    });
  }
});
