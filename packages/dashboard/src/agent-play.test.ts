import { describe, expect, it } from 'vitest';
import { type AgentPlayView, AgentSessions } from './agent-play';
import { teacherAgent } from './teacher-agent.test-helper';

describe('playing against a policy', () => {
  it('a person plays every attempt of a meta-episode against the agent and reads its reflections', async () => {
    const sessions = new AgentSessions([teacherAgent()]);
    let view = await sessions.start('teacher', 2, 4);
    expect(view.status).toBe('your-move');
    expect(view.game).toBe('tictactoe');
    const illegal = sessions.move(view.session, '7,7');
    await expect(illegal).rejects.toThrow(/not a legal move/);
    const attemptsSeen = new Set<number>();
    for (let moves = 0; view.status === 'your-move' && moves < 20; moves++) {
      attemptsSeen.add(view.attempt);
      view = await sessions.move(view.session, view.legal[0]!);
    }
    expect(view.status).toBe('finished');
    expect([...attemptsSeen]).toEqual([0, 1]);
    expect(view.results.map((r) => r.attempt)).toEqual([0, 1]);
    // The agent's reflection sits between its attempts.
    const kinds = view.agent.map((t) => `${t.kind}:${t.attempt}`);
    const reflection = kinds.indexOf('reflection:1');
    expect(reflection).toBeGreaterThan(kinds.indexOf('move:0'));
    expect(reflection).toBeLessThan(kinds.indexOf('move:1'));
    expect(view.agent[reflection]!.text.length).toBeGreaterThan(0);
    expect(sessions.get(view.session)).toEqual(view);
    await expect(sessions.move(view.session, '1,1')).rejects.toThrow(/game is over/);
  });

  it('replays the agent exactly: its earlier moves do not change when the person moves on', async () => {
    const sessions = new AgentSessions([teacherAgent()]);
    let view = await sessions.start('teacher', 1, 9);
    const before = view.agent.map((t) => t.text);
    view = await sessions.move(view.session, view.legal.at(-1)!);
    expect(view.agent.slice(0, before.length).map((t) => t.text)).toEqual(before);
    await expect(sessions.start('nobody', 1, 1)).rejects.toThrow(/No trained policy 'nobody'/);
  });
});

/** Plays `pick(view.legal)` until the game ends; returns every view the person moved from, and the last. */
async function playOut(
  sessions: AgentSessions,
  start: AgentPlayView,
  pick: (legal: readonly string[]) => string,
): Promise<{ seen: AgentPlayView[]; final: AgentPlayView }> {
  const seen: AgentPlayView[] = [];
  let view = start;
  for (let moves = 0; view.status === 'your-move' && moves < 40; moves++) {
    seen.push(view);
    view = await sessions.move(view.session, pick(view.legal));
  }
  return { seen, final: view };
}

describe('playing against a policy that sits second: the person moves first', () => {
  it('Tic-Tac-Toe: the person is X and opens on the empty board before the agent has written anything', async () => {
    const sessions = new AgentSessions([teacherAgent({ seats: 'second' })]);
    const start = await sessions.start('teacher', 2, 4);
    expect(start).toMatchObject({ status: 'your-move', seat: 0, attempt: 0, agent: [], results: [] });
    expect(start.state).toMatchObject({ x: 0, o: 0, toMove: 0 });
    expect(start.legal).toHaveLength(9);
    await expect(sessions.move(start.session, '7,7')).rejects.toThrow(/not a legal move/);
    const { seen, final } = await playOut(sessions, start, (legal) => legal[0]!);
    expect(final.status).toBe('finished');
    expect(final.results.map((r) => r.attempt)).toEqual([0, 1]);
    expect(seen.every((v) => v.seat === 0)).toBe(true);
    // Attempt 1 restarts from the task's initial state, which holds the person's opening (1,1), and
    // follows the agent's reflection on attempt 0.
    const second = seen.find((v) => v.attempt === 1)!;
    expect(second.results.map((r) => r.attempt)).toEqual([0]);
    expect((second.state as { x: number }).x).toBe(1);
    expect(second.agent.find((t) => t.kind === 'reflection')).toMatchObject({ attempt: 1 });
  });

  it('Kuhn Poker: the person holds seat 0, sees only its own card and acts first', async () => {
    const sessions = new AgentSessions([teacherAgent({ game: 'kuhn-poker', seats: 'second' })]);
    const start = await sessions.start('teacher', 2, 7);
    expect(start).toMatchObject({ status: 'your-move', seat: 0, attempt: 0, agent: [], results: [] });
    const cards = (start.state as { cards: (string | null)[] }).cards;
    expect(cards[0]).toMatch(/^[JQK]$/);
    expect(cards[1]).toBeNull();
    expect([...start.legal].sort()).toEqual(['BET', 'PASS']);
    const { final } = await playOut(sessions, start, (legal) => legal.at(-1)!);
    expect(final.status).toBe('finished');
    expect(final.results.map((r) => r.attempt)).toEqual([0, 1]);
    expect(final.agent.map((t) => `${t.kind}:${t.attempt}`)).toContain('reflection:1');
  });

  it('numbers the attempts of an agent without reflections, in either seat', async () => {
    const stones = (v: AgentPlayView) => {
      const { x, o } = v.state as { x: number; o: number };
      return [...(x | o).toString(2)].filter((b) => b === '1').length;
    };
    for (const seats of ['first', 'second'] as const) {
      const sessions = new AgentSessions([teacherAgent({ seats, method: 'react' })]);
      const { seen, final } = await playOut(sessions, await sessions.start('teacher', 3, 4), (l) => l[0]!);
      // The board shows where an attempt starts: it has fewer stones than the position before.
      let attempt = 0;
      const truth = seen.map((v, i) => (i > 0 && stones(v) <= stones(seen[i - 1]!) ? ++attempt : attempt));
      expect(truth.at(-1)).toBe(2);
      expect(seen.map((v) => v.attempt)).toEqual(truth);
      // While the person plays attempt k, attempts 0 … k − 1 are scored.
      for (const v of seen) expect(v.results.map((r) => r.attempt)).toEqual([...Array(v.attempt).keys()]);
      expect(final.results.map((r) => r.attempt)).toEqual([0, 1, 2]);
      expect(final.agent.every((t) => t.kind === 'move')).toBe(true);
    }
  });
});
