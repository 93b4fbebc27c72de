/** Every memory on the real envs: both prompt styles, both layouts, retrieval across runs. */

import { type PolicyV1, runMetaEpisodes } from '@mage-rl/core';
import { scriptedPolicy } from '@mage-rl/core/testing';
import { createKuhnPoker } from '@mage-rl/envs/kuhn-poker';
import { createTicTacToe } from '@mage-rl/envs/tictactoe';
import { createOpponent } from '@mage-rl/opponents';
import { createAMemMemory, createMementoMemory, createMemory, MEMORY_MODES } from '@mage-rl/reflection';
import { describe, expect, it } from 'vitest';

/** Plays the first empty cell of the last board in the prompt, in either prompt style. */
function firstEmpty(): PolicyV1 {
  return scriptedPolicy((r) => {
    if (r.phase === 'reflect') return '<remark>the opponent answers the centre with a corner</remark>';
    const lines = (r.messages.at(-1)?.content ?? '').split('\n');
    const rows = lines
      .map((l) => /^(?:\d {3})?([XO.])(?: \| | )([XO.])(?: \| | )([XO.])$/.exec(l))
      .filter((m) => m !== null)
      .map((m) => m.slice(1, 4).join(''));
    const board = rows.slice(-3).join('');
    const cell = Math.max(0, board.indexOf('.'));
    return `<action>(${Math.floor(cell / 3) + 1}, ${(cell % 3) + 1})</action>`;
  });
}

const ttt = (memory: Parameters<typeof runMetaEpisodes>[0]['memory'], extra: Record<string, unknown> = {}) =>
  runMetaEpisodes({
    env: createTicTacToe(),
    policy: firstEmpty(),
    memory,
    opponents: ['pattern-corners-first', 'random', 'mcts-20'],
    makeOpponent: (id) => createOpponent('tictactoe', id),
    groups: 3,
    groupSize: 2,
    seed: 3,
    earlyStop: false,
    seats: { mixed: 0.5 },
    ...extra,
  });

describe('memories on Tic-Tac-Toe', () => {
  it('every mode, style and layout plays valid moves and gives the same actions in both layouts', async () => {
    for (const mode of MEMORY_MODES) {
      for (const style of ['verbose', 'compact'] as const) {
        const turn = await ttt(createMemory({ mode }), { style });
        const transcript = await ttt(createMemory({ mode }), { style, context: 'transcript' });
        expect(turn.rows.filter((r) => r.phase === 'play').every((r) => r.valid)).toBe(true);
        const strip = (rows: typeof turn.rows) => rows.map(({ promptText: _, ...r }) => r);
        expect(strip(transcript.rows)).toEqual(strip(turn.rows));
      }
    }
  });

  it('memento and a-mem carry cases and notes from one run into the next', async () => {
    const memento = createMementoMemory();
    const amem = createAMemMemory();
    for (const memory of [memento, amem]) {
      await ttt(memory);
      const next = await ttt(memory, { iteration: 1 });
      const first = next.rows.find((r) => r.phase === 'play' && r.attempt === 0 && r.turn === 0);
      expect(first?.promptText).toMatch(
        memory === memento ? /Similar past cases/ : /Related notes from your memory/,
      );
    }
    expect(memento.cases.length).toBe(2 * 6 * 3);
    expect(amem.notes.length).toBe(2 * 6 * 2);
  });
});

describe('Kuhn Poker new-deal mode', () => {
  it('shows each attempt its own deal in the prompt and anchors', async () => {
    const batch = await runMetaEpisodes({
      env: createKuhnPoker({ mode: 'new-deal' }),
      policy: scriptedPolicy((r) =>
        r.phase === 'reflect' ? '<remark>bet kings</remark>' : '<action>PASS</action>',
      ),
      memory: createMemory(),
      opponents: ['intermediate'],
      makeOpponent: (id) => createOpponent('kuhn-poker', id),
      groups: 8,
      groupSize: 1,
      seed: 5,
      earlyStop: false,
    });
    let differs = 0;
    for (const slot of batch.slots) {
      const firsts = [0, 1, 2].map((k) =>
        batch.rows.find((r) => r.slot === slot.slot && r.phase === 'play' && r.attempt === k && r.turn === 0),
      );
      for (const row of firsts) {
        const card = /^kuhn-poker:([JQK]):/.exec(row?.anchor ?? '')?.[1];
        const initial = row?.promptText.split('Initial state:\n')[1] ?? '';
        expect(initial).toContain(`(${card})`);
      }
      if (new Set(firsts.map((r) => r?.anchor)).size > 1) differs++;
    }
    expect(differs).toBeGreaterThan(0);
  });
});
