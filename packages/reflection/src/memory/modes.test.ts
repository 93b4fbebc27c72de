import {
  type ChatMessage,
  ConfigError,
  type PolicyRequestV1,
  type PolicyV1,
  type RowRecord,
  runMetaEpisodes,
  UnknownIdError,
} from '@mage-rl/core';
import { createNimEnv, nimOpponents, nimPileOf, scriptedPolicy } from '@mage-rl/core/testing';
import { describe, expect, it } from 'vitest';
import { COMPACT_VOCABULARY } from '../prompts/phrases';
import { createMemory, MEMORY_MODES, type MemoryMode } from './modes';

const env = createNimEnv();
const makeOpponent = nimOpponents();
const lastUser = (r: PolicyRequestV1): string => r.messages[r.messages.length - 1]?.content ?? '';
/** Always takes one stone; reflects with a fixed note. Returns fake token ids so transcripts carry them. */
function takeOne(): PolicyV1 {
  return {
    specificationVersion: 'v1',
    id: 'take-one',
    async generate(requests) {
      return requests.map((r) => ({
        text: r.phase === 'reflect' ? '<remark>take two next time</remark>' : '<action>1</action>',
        promptTokens: [],
        tokens: r.phase === 'reflect' ? [7, 8] : [1],
        logprobs: r.phase === 'reflect' ? [-1, -1] : [-0.1],
        finishReason: 'stop' as const,
      }));
    },
  };
}
const run = (mode: MemoryMode, extra: Record<string, unknown> = {}) =>
  runMetaEpisodes({
    env,
    policy: takeOne(),
    memory: createMemory({ mode }),
    opponents: ['first-legal'],
    makeOpponent,
    groups: 2,
    groupSize: 1,
    seed: 11,
    earlyStop: false,
    ...extra,
  });
const rowsOf = (rows: readonly RowRecord[], attempt: number, phase: 'play' | 'reflect' = 'play') =>
  rows.filter((r) => r.slot === 'g0/s0' && r.attempt === attempt && r.phase === phase);

describe('memory modes, turn layout', () => {
  it('reflection: earlier attempts appear as result + note, no history', async () => {
    const batch = await run('reflection');
    const first = rowsOf(batch.rows, 1)[0] as RowRecord;
    expect(first.promptText).toContain('Your earlier attempts at this same task:');
    expect(first.promptText).toMatch(/Attempt 1 was (not )?won; your note: take two next time/);
    expect(first.promptText).not.toContain('Attempt 1 (');
    const third = rowsOf(batch.rows, 2)[0] as RowRecord;
    expect(third.promptText).toMatch(/Attempt 2 was (not )?won; your note: take two next time/);
    expect(rowsOf(batch.rows, 0)[0]?.promptText).not.toContain('earlier attempts');
  });

  it('history: earlier attempts appear as their event lines, notes hidden, reflect turns still run', async () => {
    const batch = await run('history');
    const first = rowsOf(batch.rows, 1)[0] as RowRecord;
    expect(first.promptText).toMatch(/Attempt 1 \((win|loss)\):\nTurn 1: you took 1, opponent took 1/);
    expect(first.promptText).not.toContain('your note');
    expect(rowsOf(batch.rows, 1, 'reflect')).toHaveLength(1);
  });

  it('reflection+history shows both; none shows nothing and runs no reflect turns', async () => {
    const both = await run('reflection+history');
    const p = rowsOf(both.rows, 1)[0]?.promptText ?? '';
    expect(p).toContain('Turn 1: you took 1');
    expect(p).toContain('your note: take two next time');
    const none = await run('none');
    expect(none.rows.filter((r) => r.phase === 'reflect')).toHaveLength(0);
    const q = rowsOf(none.rows, 1)[0]?.promptText ?? '';
    expect(q).not.toContain('earlier attempts');
    // With nothing to remember, attempt 2's first prompt equals attempt 1's but for the heading.
    expect(q.replace('Attempt 2 of 3', 'Attempt 1 of 3')).toBe(rowsOf(none.rows, 0)[0]?.promptText);
  });

  it('reflect prompt: rules, initial state, the full history, the result and the <remark> instruction', async () => {
    const batch = await run('reflection');
    const reflect = rowsOf(batch.rows, 1, 'reflect')[0] as RowRecord;
    const plays = rowsOf(batch.rows, 0);
    const text = reflect.promptText;
    expect(text).toContain('Nim. Players alternately take 1 or 2 stones.');
    expect(text).toContain('Initial state:\nThere are');
    expect(text).toContain('Attempt 1 of 3 has finished. Its full history:');
    expect(text.match(/Turn \d+, state:/g)).toHaveLength(plays.length);
    expect(text).toMatch(/Result: it was (won|not won \((loss|truncated)\))\./);
    expect(text.trimEnd().endsWith('Write your note inside <remark>...</remark>.')).toBe(true);
  });

  it('shows the last 7 steps, with states on the last 2', async () => {
    const long = createNimEnv({ minStones: 30, maxStones: 30, maxTurns: 12 });
    const batch = await runMetaEpisodes({
      env: long,
      policy: takeOne(),
      memory: createMemory({ mode: 'reflection' }),
      opponents: ['first-legal'],
      makeOpponent,
      groups: 1,
      groupSize: 1,
      seed: 1,
      attempts: 1,
    });
    const tenth = batch.rows[9] as RowRecord;
    const history =
      tenth.promptText.split('Recent history of this attempt:\n')[1]?.split('\n\nCurrent state:')[0] ?? '';
    expect(history.match(/^Turn \d+: /gm)).toHaveLength(7);
    expect(history).toContain('Turn 3: you took 1');
    expect(history).not.toContain('Turn 2: ');
    expect(history.match(/^Turn \d+, state:/gm)).toEqual(['Turn 8, state:', 'Turn 9, state:']);
    expect(tenth.promptText.endsWith('Current state:\nThere are 12 stones left.')).toBe(true);
  });

  it('rejects unknown modes and reflect turns without memory', () => {
    expect(() => createMemory({ mode: 'dreams' as MemoryMode })).toThrow(UnknownIdError);
    expect(() => createMemory({ mode: 'none', reflect: true })).toThrow(ConfigError);
    expect(() => createMemory({ historyWindow: -1 })).toThrow(ConfigError);
    expect(createMemory({ mode: 'history', reflect: false }).reflects).toBe(false);
  });
});

describe('transcript layout', () => {
  const transcriptOf = async (mode: MemoryMode) => {
    const seen: PolicyRequestV1[] = [];
    const inner = takeOne();
    const policy: PolicyV1 = {
      ...inner,
      generate: async (requests) => {
        seen.push(...requests);
        return inner.generate(requests);
      },
    };
    const batch = await runMetaEpisodes({
      env,
      policy,
      memory: createMemory({ mode }),
      opponents: ['first-legal'],
      makeOpponent,
      groups: 1,
      groupSize: 1,
      seed: 11,
      earlyStop: false,
      context: 'transcript',
    });
    return { batch, seen };
  };

  it('grows one alternating conversation; assistant turns carry their token ids', async () => {
    const { seen } = await transcriptOf('reflection+history');
    for (const r of seen) {
      const roles = r.messages.map((m) => m.role);
      expect(roles).toEqual(roles.map((_, i) => (i % 2 === 0 ? 'user' : 'assistant')));
      expect(roles[roles.length - 1]).toBe('user');
      for (const m of r.messages.filter((x) => x.role === 'assistant')) {
        expect(m.tokens).toEqual(m.content.startsWith('<remark>') ? [7, 8] : [1]);
      }
    }
    // With full history every request extends the previous one (one forward pass scores the slot).
    for (let i = 1; i < seen.length; i++) {
      const prev = seen[i - 1]?.messages as readonly ChatMessage[];
      const next = seen[i]?.messages as readonly ChatMessage[];
      expect(next.length).toBeGreaterThan(prev.length);
      expect(next.slice(0, prev.length - 1)).toEqual(prev.slice(0, -1));
      expect(next[prev.length - 1]?.content.startsWith(prev[prev.length - 1]?.content ?? '')).toBe(true);
    }
    // Play prompts end with the current state.
    for (const r of seen.filter((x) => x.phase === 'play'))
      expect(lastUser(r)).toMatch(/There are \d+ stones left\.$/);
    // Reflect prompts end with the <remark> instruction.
    for (const r of seen.filter((x) => x.phase === 'reflect'))
      expect(lastUser(r)).toMatch(/<remark>\.\.\.<\/remark>\.$/);
  });

  it('reflection-only keeps earlier notes but drops earlier play turns; none starts afresh each attempt', async () => {
    const { batch } = await transcriptOf('reflection');
    const attempt1 = rowsOf(batch.rows, 1)[0]?.promptText ?? '';
    expect(attempt1).toContain('<|assistant|>\n<remark>take two next time</remark>');
    expect(attempt1).not.toContain('<|assistant|>\n<action>1</action>');
    const none = await transcriptOf('none');
    const n1 = rowsOf(none.batch.rows, 1)[0]?.promptText ?? '';
    expect(n1.replace('Attempt 2 of 3', 'Attempt 1 of 3')).toBe(rowsOf(none.batch.rows, 0)[0]?.promptText);
  });
});

describe('turn and transcript layouts', () => {
  it('give the same actions and rows for a deterministic scripted policy, in every mode', async () => {
    // Plays optimally from the state it reads at the end of the prompt.
    const optimal = () =>
      scriptedPolicy((r) =>
        r.phase === 'reflect' ? '<remark>ok</remark>' : `<action>${nimPileOf(r) % 3 || 1}</action>`,
      );
    for (const mode of MEMORY_MODES) {
      const runs = await Promise.all(
        (['turn', 'transcript'] as const).map((context) =>
          runMetaEpisodes({
            env,
            policy: optimal(),
            memory: createMemory({ mode }),
            opponents: ['first-legal'],
            makeOpponent,
            groups: 4,
            groupSize: 2,
            seed: 5,
            seats: { mixed: 0.5 },
            earlyStop: false,
            context,
          }),
        ),
      );
      const strip = (rows: readonly RowRecord[]) => rows.map(({ promptText: _, ...rest }) => rest);
      expect(strip(runs[1]?.rows ?? [])).toEqual(strip(runs[0]?.rows ?? []));
      expect(runs[1]?.slots).toEqual(runs[0]?.slots);
    }
  });
});

describe('compact style', () => {
  it('uses only the fixed vocabulary besides env text, notes and numbers', async () => {
    for (const context of ['turn', 'transcript'] as const) {
      for (const mode of MEMORY_MODES) {
        const batch = await run(mode, { style: 'compact', context });
        const envTexts = [
          'nim: take 1 or 2; last stone wins. answer <action>N</action>',
          'take two next time',
          '<remark>take two next time</remark>',
          '<action>1</action>',
        ];
        for (const row of batch.rows) {
          let text = row.promptText.replace(/<\|(user|assistant)\|>/g, ' ');
          for (const t of envTexts) text = text.split(t).join(' ');
          text = text.replace(/pile \d+/g, ' ').replace(/you took \d+(, opponent took \d+)?/g, ' ');
          const tokens = text.split(/\s+/).filter((t) => t.length > 0 && !/^\d+$/.test(t));
          const unknown = tokens.filter((t) => !COMPACT_VOCABULARY.includes(t));
          expect(unknown, `${mode}/${context}: ${row.promptText}`).toEqual([]);
        }
      }
    }
  });
});
