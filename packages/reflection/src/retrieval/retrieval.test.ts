import { type OpponentV1, type PolicyV1, runMetaEpisodes } from '@mage-rl/core';
import {
  createNimEnv,
  type NimAction,
  type NimState,
  nimOpponents,
  scriptedPolicy,
} from '@mage-rl/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMPACT_VOCABULARY } from '../prompts/phrases';
import { createAMemMemory } from './a-mem';
import { cosine, keywords, stateFeatures } from './lexical';
import { createMementoMemory } from './memento';

const env = createNimEnv();
const greedy: OpponentV1<NimState, NimAction> = {
  specificationVersion: 'v1',
  id: 'greedy',
  act: (s) => (s.stones >= 2 ? 2 : 1),
};
const makeOpponent = nimOpponents(greedy);
const policy = (): PolicyV1 =>
  scriptedPolicy((r) =>
    r.phase === 'reflect' ? '<remark>opponent grabs two stones every turn</remark>' : '<action>1</action>',
  );
const runWith = (memory: Parameters<typeof runMetaEpisodes>[0]['memory'], iteration: number, extra = {}) =>
  runMetaEpisodes({
    env,
    policy: policy(),
    memory,
    opponents: ['first-legal', 'greedy'],
    makeOpponent,
    groups: 2,
    groupSize: 2,
    seed: 4,
    iteration,
    earlyStop: false,
    ...extra,
  });

describe('lexical similarity', () => {
  it('is symmetric, in [0, 1], and 1 for equal bags (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.string({ maxLength: 80 }), (a, b) => {
        const x = new Map<string, number>();
        const y = new Map<string, number>();
        stateFeatures(x, a);
        stateFeatures(y, b);
        const s = cosine(x, y);
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1 + 1e-12);
        expect(cosine(y, x)).toBeCloseTo(s, 12);
        if (x.size > 0) expect(cosine(x, x)).toBeCloseTo(1, 12);
      }),
    );
  });

  it('extracts keywords by frequency without stop words', () => {
    expect(keywords('The opponent takes two. Opponent always takes two stones!', 3)).toEqual([
      'opponent',
      'takes',
      'two',
    ]);
  });
});

describe('memento', () => {
  it('stores finished attempts as cases and shows the most similar ones, persisting across runs', async () => {
    const memory = createMementoMemory({ k: 2 });
    expect(memory.reflects).toBe(false);
    const first = await runWith(memory, 0);
    // Inside a run a slot sees its own earlier attempts only.
    const a0 = first.rows.find((r) => r.slot === 'g0/s0' && r.attempt === 0);
    expect(a0?.promptText).not.toContain('Similar past cases');
    const a1 = first.rows.find((r) => r.slot === 'g0/s0' && r.attempt === 1);
    expect(a1?.promptText.match(/^Case \d/gm)).toHaveLength(1);
    expect(memory.cases).toHaveLength(4 * 3);
    // The next run retrieves committed cases, most similar (same opponent) first.
    const second = await runWith(memory, 1);
    const b0 = second.rows.find((r) => r.slot === 'g1/s0' && r.attempt === 0 && r.phase === 'play');
    expect(b0?.promptText.match(/^Case \d/gm)).toHaveLength(2);
    expect(b0?.promptText).toContain(`Case 1 (opponent ${second.groups[1]?.task.opponentId}`);
    expect(memory.cases).toHaveLength(24);
    expect(JSON.parse(JSON.stringify(memory.cases))).toEqual(memory.cases);
  });

  it('is deterministic and restores from saved cases', async () => {
    const a = createMementoMemory();
    await runWith(a, 0);
    const b = createMementoMemory({ cases: a.cases });
    const c = createMementoMemory({ cases: a.cases });
    expect(await runWith(b, 3)).toEqual(await runWith(c, 3));
  });
});

describe('a-mem', () => {
  it('stores notes with keywords and links and retrieves them in later runs', async () => {
    const memory = createAMemMemory({ k: 2, maxLinks: 1 });
    expect(memory.reflects).toBe(true);
    await runWith(memory, 0);
    expect(memory.notes).toHaveLength(4 * 2); // two reflections per slot
    const note = memory.notes[1];
    expect(note?.keywords).toEqual(['opponent', 'grabs', 'two', 'stones', 'every']);
    expect(note?.links).toContain(0);
    expect(memory.notes[0]?.links).toContain(1);
    const second = await runWith(memory, 1);
    const p = second.rows.find((r) => r.attempt === 0 && r.phase === 'play')?.promptText ?? '';
    expect(p).toContain('Related notes from your memory:');
    expect(p.match(/^- \(opponent/gm)?.length).toBeGreaterThanOrEqual(2);
    expect(p).toContain('opponent grabs two stones every turn');
  });

  it('skips empty notes from reflections without a <remark> tag', async () => {
    const memory = createAMemMemory();
    await runMetaEpisodes({
      env,
      policy: scriptedPolicy(() => 'no tag'),
      memory,
      opponents: ['greedy'],
      makeOpponent,
      groups: 1,
      groupSize: 1,
      seed: 1,
      earlyStop: false,
    });
    expect(memory.notes).toHaveLength(0);
  });

  it('compact retrieval blocks stay within the compact vocabulary', async () => {
    for (const memory of [createAMemMemory(), createMementoMemory()]) {
      await runWith(memory, 0, { style: 'compact' });
      const batch = await runWith(memory, 1, { style: 'compact' });
      for (const row of batch.rows) {
        const text = row.promptText
          .split('nim: take 1 or 2; last stone wins. answer <action>N</action>')
          .join(' ')
          .replace(/opponent grabs two stones every turn/g, ' ')
          .replace(/you took \d+(, opponent took \d+)?/g, ' ')
          .replace(/pile \d+|first-legal|greedy|^- /gm, ' ');
        const unknown = text
          .split(/\s+/)
          .filter((t) => t && !/^\d+$/.test(t) && !COMPACT_VOCABULARY.includes(t));
        expect(unknown, row.promptText).toEqual([]);
      }
    }
  });
});
