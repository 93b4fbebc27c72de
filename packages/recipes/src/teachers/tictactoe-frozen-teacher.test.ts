import { createRng, evaluate, type MetaEpisodeMetricsV1 } from '@mage-rl/core';
import { createFrozenTicTacToe } from '@mage-rl/envs/tictactoe';
import { createOpponent, frozenTicTacToeLevels, mctsOpponent } from '@mage-rl/opponents';
import { createMemory } from '@mage-rl/reflection';
import { describe, expect, it } from 'vitest';
import { createTeacher } from './create-teacher';
import { optimalTicTacToeMoves, wonLine } from './tictactoe-frozen-teacher';

const EPISODES = 60;

/** The teacher first to move against frozen MCTS-100, K = 3, every attempt played. */
async function teacherMetrics(options: {
  adaptive: number;
  memory?: 'reflection' | 'none';
  style?: 'compact' | 'verbose';
}): Promise<{ metrics: MetaEpisodeMetricsV1; notes: string[]; shown: string[] }> {
  const env = createFrozenTicTacToe();
  const style = options.style ?? 'compact';
  const result = await evaluate({
    env,
    policy: createTeacher(env, { style, adaptive: options.adaptive }),
    memory: createMemory({ mode: options.memory ?? 'reflection' }),
    opponents: ['mcts-100'],
    makeOpponent: (id: string) => createOpponent('tictactoe', id),
    episodes: EPISODES,
    attempts: 3,
    earlyStop: false,
    seats: 'first',
    style,
    seed: 'tictactoe-frozen-teacher',
  });
  const reflect = result.batch.rows.filter((r) => r.phase === 'reflect');
  // What the reflect prompt showed, as a note would state it: the result word, then the revealed line.
  const shown = reflect.map((r) => {
    const word = /result : (\w+)/.exec(r.promptText)?.[1];
    const line = [...r.promptText.matchAll(/^end you(?: \S+)*$/gm)].at(-1)?.[0];
    return `${word} . ${line}`;
  });
  return { metrics: result.metrics, notes: reflect.map((r) => r.responseText), shown };
}

const wins = (m: MetaEpisodeMetricsV1) => m.overall.perAttempt.map((a) => a.success.rate);

describe('the frozen Tic-Tac-Toe teacher', () => {
  it('plays only optimal moves: a win when there is one, a block when it must, any cell on the empty board', () => {
    expect(optimalTicTacToeMoves(['...', '...', '...'])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    // X to move with two in the top row: the win, and only the win.
    expect(optimalTicTacToeMoves(['XX.', 'OO.', '...'])).toEqual([2]);
    // O threatens the middle row: the block is the only move that does not lose.
    expect(optimalTicTacToeMoves(['X..', 'OO.', 'X..'])).toEqual([5]);
    // After a corner by O against a centre X, every reply draws except none: all non-losing moves.
    const afterCorner = optimalTicTacToeMoves(['O..', '.X.', '...']);
    expect(afterCorner.length).toBeGreaterThan(0);
    expect(afterCorner).not.toContain(0);
    // Second to move after a corner opening: only the centre holds the draw.
    expect(optimalTicTacToeMoves(['O..', '...', '...'])).toEqual([4]);
  });

  it('note-blind it is the memoryless player of the ceiling: it beats frozen MCTS-100 about half the time', async () => {
    const { metrics, notes, shown } = await teacherMetrics({ adaptive: 0 });
    const levels = frozenTicTacToeLevels({
      opponent: () => mctsOpponent({ simulations: 100 }),
      seat: 'first',
      metaEpisodes: 400,
      attempts: 3,
      rngOf: createRng,
    });
    const memoryless = levels.players.memoryless.wins.map((w) => w / 400);
    for (const k of [0, 1, 2]) {
      expect(wins(metrics)[k]).toBeGreaterThan(0.3);
      expect(Math.abs(wins(metrics)[k]! - memoryless[k]!)).toBeLessThan(0.2);
    }
    // Its notes state the result and the agent's line, nothing else.
    expect(notes.length).toBe(EPISODES * 2);
    notes.forEach((note, i) => {
      expect(note).toMatch(/^<remark> attempt [12] (won|lost|draw) \. end you( [1-3][1-3])+ <\/remark>$/);
      // Word for word what the reflect prompt showed: the result, then the revealed line.
      expect(note).toContain(shown[i]);
    });
  });

  it('reading its notes it replays a won line: every meta-episode won by attempt 1 wins attempts 2 and 3', async () => {
    for (const style of ['compact', 'verbose'] as const) {
      const { metrics } = await teacherMetrics({ adaptive: 1, style });
      const passes = metrics.overall.perAttempt.map((a) => a.passAtK.rate);
      // A won line is replayed and wins again, so attempt k wins wherever some attempt up to k won (the
      // note-blind teacher does not: about 0.55 against a pass@3 above 0.8).
      expect(wins(metrics)).toEqual(passes);
      expect(passes[2]! - passes[0]!).toBeGreaterThan(0.2);
    }
  });

  it('without notes in its context it plays as the note-blind teacher', async () => {
    const adaptive = await teacherMetrics({ adaptive: 1, memory: 'none' });
    const blind = await teacherMetrics({ adaptive: 0, memory: 'none' });
    expect(wins(adaptive.metrics)).toEqual(wins(blind.metrics));
  });

  it('reads the agent moves of the first won attempt from its events', () => {
    const won = { success: true, draw: false, truncated: false, label: 'win' };
    const lost = { success: false, draw: false, truncated: false, label: 'loss' };
    const earlier = [
      { outcome: lost, events: ['you ( 1 , 1 ) opponent ( 2 , 2 )'] },
      {
        outcome: won,
        events: [
          'you ( 3 , 1 ) opponent ( 1 , 1 )',
          'invalid',
          'You played (3, 2); the opponent played (1, 2).',
          'you ( 3 , 3 )',
        ],
      },
    ];
    expect(wonLine(earlier, 3)).toEqual([6, 7, 8]);
    expect(wonLine(earlier.slice(0, 1), 3)).toBeNull();
  });
});
