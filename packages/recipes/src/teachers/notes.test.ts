import { type EnvV1, runMetaEpisodes } from '@mage-rl/core';
import { createKuhnPoker } from '@mage-rl/envs/kuhn-poker';
import { createRps } from '@mage-rl/envs/rps';
import { createSokoban } from '@mage-rl/envs/sokoban';
import { createTicTacToe } from '@mage-rl/envs/tictactoe';
import { createOpponent } from '@mage-rl/opponents';
import { COMPACT_VOCABULARY, createMemory } from '@mage-rl/reflection';
import { describe, expect, it } from 'vitest';
import { ENV_COMPACT_WORDS } from '../vocabulary';
import { createTeacher } from './create-teacher';
import { factualNote, revealStatesAttempt } from './notes';

const lost = { success: false, draw: false, truncated: false, label: 'loss' };
const ALLOWED = new Set([...COMPACT_VOCABULARY, ...ENV_COMPACT_WORDS]);
const isNumber = (w: string) => /^[+-]?\d+$/.test(w);

async function reflectRows(env: EnvV1, opponents: string[] | null, style: 'compact' | 'verbose') {
  const batch = await runMetaEpisodes({
    env,
    policy: createTeacher(env, { style }),
    memory: createMemory({ mode: 'reflection' }),
    ...(opponents ? { opponents, makeOpponent: (id: string) => createOpponent(env.id, id) as never } : {}),
    groups: opponents ? opponents.length * 2 : 4,
    groupSize: 2,
    attempts: 3,
    earlyStop: false,
    seats: { mixed: 0.5 },
    style,
    seed: 11,
  });
  return batch.rows.filter((r) => r.phase === 'reflect');
}

const ENVS: [EnvV1, string[] | null][] = [
  [createTicTacToe() as unknown as EnvV1, ['random', 'mcts-50', 'pattern-edges-first']],
  [createKuhnPoker() as unknown as EnvV1, ['aggressive', 'conservative', 'cfr']],
  [createSokoban({ boxes: 1 }) as unknown as EnvV1, null],
];

describe('factual notes', () => {
  it('compact notes use only compact-vocabulary words, env words and numbers', async () => {
    for (const [env, opponents] of ENVS) {
      const rows = await reflectRows(env, opponents, 'compact');
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.valid).toBe(true);
        const words = row.responseText.split(/\s+/).filter((w) => w !== '');
        expect(words.filter((w) => !ALLOWED.has(w) && !isNumber(w))).toEqual([]);
      }
    }
  });

  it('state what happened: result, every turn in order and the revealed cards', () => {
    const finished = {
      outcome: { success: false, draw: false, truncated: false, label: 'loss' },
      events: ['you BET opp BET . you -2'],
      reveal: 'showdown you Q opp K',
    };
    expect(factualNote(finished, { attempt: 0, style: 'compact' })).toBe(
      '<remark> attempt 1 lost . turn 1 -> you BET opp BET . you -2 . showdown you Q opp K </remark>',
    );
    expect(
      factualNote(
        {
          outcome: { success: true, draw: false, truncated: false, label: 'win' },
          events: ['You played (2, 2); the opponent played (1, 1).', 'invalid: (1, 1) is taken'],
        },
        { attempt: 1, style: 'verbose' },
      ),
    ).toBe(
      '<remark>Attempt 2 was won (win). Turn 1: You played (2, 2); the opponent played (1, 1). Turn 2: invalid: (1, 1) is taken.</remark>',
    );
  });

  it('state the result and the reveal alone when the reveal restates every line of the attempt, in order', () => {
    const events = ['you rock opp paper loss', 'you paper opp scissors loss', 'you rock opp rock draw'];
    const reveal = `end . ${events.join(' . ')}`;
    const finished = { outcome: lost, events, reveal };
    expect(revealStatesAttempt(finished)).toBe(true);
    expect(factualNote(finished, { attempt: 0, style: 'compact' })).toBe(
      '<remark> attempt 1 lost . end . you rock opp paper loss . you paper opp scissors loss . you rock opp rock draw </remark>',
    );
    expect(
      factualNote(
        { ...finished, events: ['You threw rock.'], reveal: 'Throws: You threw rock.' },
        {
          attempt: 2,
          style: 'verbose',
        },
      ),
    ).toBe('<remark>Attempt 3 was lost (loss). Throws: You threw rock.</remark>');
    // A reveal that leaves a line out, or states them in another order, comes after every turn's line.
    for (const other of [
      { ...finished, events: [...events, 'invalid'] },
      { ...finished, events: [events[1] ?? '', events[0] ?? '', events[2] ?? ''] },
      { ...finished, reveal: 'showdown you Q opp K' },
    ]) {
      expect(revealStatesAttempt(other)).toBe(false);
      expect(factualNote(other, { attempt: 0, style: 'compact' })).toMatch(
        /^<remark> attempt 1 lost . turn 1 -> /,
      );
    }
  });

  it('Rock-Paper-Scissors: every note is the result and the line of rounds the reflect prompt shows last', async () => {
    for (const style of ['compact', 'verbose'] as const) {
      const batch = await runMetaEpisodes({
        env: createRps() as unknown as EnvV1,
        policy: createTeacher(createRps() as unknown as EnvV1, { style }),
        memory: createMemory({ mode: 'reflection' }),
        opponents: ['cycle-rock', 'beat-last-paper'],
        makeOpponent: (id: string) => createOpponent('rps', id) as never,
        groups: 4,
        groupSize: 2,
        attempts: 3,
        earlyStop: false,
        style,
        seed: 5,
      });
      const rows = batch.rows.filter((r) => r.phase === 'reflect');
      expect(rows.length).toBe(16);
      for (const row of rows) {
        // The line right before the result lists the attempt's rounds.
        const lines = row.promptText.split('\n').filter((l) => l.trim() !== '');
        const result = lines.findLastIndex((l) => /^(result :|Result:)/.test(l));
        const reveal = lines[result - 1] ?? '';
        expect(reveal).toMatch(
          style === 'compact' ? /^end( \. you \w+ opp \w+ (win|draw|loss)){3}$/ : /^This attempt's throws: /,
        );
        expect(row.responseText).toMatch(
          style === 'compact'
            ? /^<remark> attempt \d (won|lost) \. end \. /
            : /^<remark>Attempt \d was (won|lost) \(\w+\)\. This attempt's throws: /,
        );
        expect(row.responseText).toContain(reveal);
        expect(row.noteRecall).toBe(1);
      }
    }
  });

  it("Tic-Tac-Toe with reveal 'moves': every note is the result and the line of moves the prompt shows last", async () => {
    for (const style of ['compact', 'verbose'] as const) {
      const env = createTicTacToe({ reveal: 'moves', replies: 'board' }) as unknown as EnvV1;
      const batch = await runMetaEpisodes({
        env,
        // Mistakes: some attempts hold invalid turns, whose lines the reveal keeps too.
        policy: createTeacher(env, { style, mistakes: 0.2, adaptive: 0.5 }),
        memory: createMemory({ mode: 'reflection' }),
        opponents: ['mcts-50', 'random', 'pattern-edges-first'],
        makeOpponent: (id: string) => createOpponent('tictactoe', id) as never,
        groups: 6,
        groupSize: 2,
        attempts: 3,
        earlyStop: false,
        seats: { mixed: 0.5 },
        style,
        seed: 5,
      });
      const rows = batch.rows.filter((r) => r.phase === 'reflect');
      expect(rows.length).toBe(24); // 12 slots, a note after attempts 1 and 2
      let second = 0;
      let invalid = 0;
      for (const row of rows) {
        const lines = row.promptText.split('\n').filter((l) => l.trim() !== '');
        const result = lines.findLastIndex((l) => /^(result :|Result:)/.test(l));
        const reveal = lines[result - 1] ?? '';
        expect(reveal).toMatch(
          style === 'compact' ? /^end \. (you|opponent) \( / : /^This attempt's moves: /,
        );
        expect(row.responseText).toMatch(
          style === 'compact'
            ? /^<remark> attempt \d (won|lost|draw) \. end \. /
            : /^<remark>Attempt \d (was won|was lost|was a draw) \(\w+\)\. This attempt's moves: /,
        );
        // The note is a copy of the line: no turn is listed apart from it.
        expect(row.responseText).toContain(reveal);
        expect(row.responseText).not.toMatch(/turn 1 ->|Turn 1:/);
        expect(row.noteRecall).toBe(1);
        if (/^end \. opponent|The opponent played \(\d, \d\) first/.test(reveal)) second++;
        if (/\binvalid\b/.test(reveal)) invalid++;
      }
      expect(second).toBeGreaterThan(0);
      expect(invalid).toBeGreaterThan(0);
    }
  });

  it("Tic-Tac-Toe without the option: no reveal, the note lists every turn, as with reveal 'none'", async () => {
    const rows = await reflectRows(ENVS[0]?.[0] as EnvV1, ['random'], 'compact');
    const none = await reflectRows(
      createTicTacToe({ reveal: 'none' }) as unknown as EnvV1,
      ['random'],
      'compact',
    );
    expect(none.map((r) => [r.promptText, r.responseText])).toEqual(
      rows.map((r) => [r.promptText, r.responseText]),
    );
    for (const row of rows) {
      expect(row.responseText).toMatch(/^<remark> attempt \d (won|lost|draw|truncated) \. turn 1 -> you \( /);
      expect(row.promptText).not.toMatch(/^end \. /m);
    }
  });

  it('verbose notes quote the env history lines and never give advice', async () => {
    const rows = await reflectRows(ENVS[0]?.[0] as EnvV1, ['random'], 'verbose');
    for (const row of rows) {
      expect(row.responseText).toMatch(
        /^<remark>Attempt \d was (won|lost|a draw) \(\w+\)\. Turn 1: You played/,
      );
      expect(row.responseText).not.toMatch(/should|next time|plan|better/i);
    }
  });
});
