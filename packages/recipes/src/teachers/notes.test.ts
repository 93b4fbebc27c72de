import { type EnvV1, runMetaEpisodes } from '@mage-rl/core';
import { createKuhnPoker } from '@mage-rl/envs/kuhn-poker';
import { createSokoban } from '@mage-rl/envs/sokoban';
import { createTicTacToe } from '@mage-rl/envs/tictactoe';
import { createOpponent } from '@mage-rl/opponents';
import { COMPACT_VOCABULARY, createMemory } from '@mage-rl/reflection';
import { describe, expect, it } from 'vitest';
import { ENV_COMPACT_WORDS } from '../vocabulary';
import { createTeacher } from './create-teacher';
import { factualNote } from './notes';

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
