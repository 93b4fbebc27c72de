import type { PlayAgentV1 } from '@mage-rl/core';
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

describe("the agent's moves while the person is to move", () => {
  /** Stones of `player` (0: X, 1: O) on a Tic-Tac-Toe board. */
  const stones = (v: AgentPlayView, player: 0 | 1) => {
    const board = (v.state as { x: number; o: number })[player === 0 ? 'x' : 'o'];
    return [...board.toString(2)].filter((b) => b === '1').length;
  };
  const moveOf = (t: AgentPlayView['agent'][number]) => `${t.kind}:${t.attempt}:${t.valid}:${t.text}`;

  it('the first view lists the opening move the agent made on the board', async () => {
    const sessions = new AgentSessions([teacherAgent()]);
    const start = await sessions.start('teacher', 2, 4);
    expect(start).toMatchObject({ status: 'your-move', seat: 1, attempt: 0 });
    expect(stones(start, 0)).toBe(1);
    expect(start.agent).toHaveLength(1);
    expect(start.agent[0]).toMatchObject({ attempt: 0, kind: 'move', valid: true });
    expect(start.agent[0]!.text).toContain('<action>');
    // Once the person answers, the move is recorded with the same text.
    const next = await sessions.move(start.session, start.legal[0]!);
    expect(moveOf(next.agent[0]!)).toBe(moveOf(start.agent[0]!));
  });

  it('every view lists as many agent moves in its attempt as the agent has stones, in either seat', async () => {
    for (const seats of ['first', 'second'] as const) {
      const sessions = new AgentSessions([teacherAgent({ seats })]);
      const { seen, final } = await playOut(sessions, await sessions.start('teacher', 2, 4), (l) => l[0]!);
      expect(new Set(seen.map((v) => v.attempt))).toEqual(new Set([0, 1]));
      const agentPlayer = seats === 'first' ? 0 : 1;
      for (const v of seen) {
        const moves = v.agent.filter((t) => t.kind === 'move' && t.attempt === v.attempt);
        expect(moves.every((t) => t.valid)).toBe(true);
        expect(moves).toHaveLength(stones(v, agentPlayer));
      }
      // What a view lists stays listed, word for word, in every later view.
      const views = [...seen, final];
      for (let i = 1; i < views.length; i++) {
        const before = views[i - 1]!.agent.map(moveOf);
        expect(views[i]!.agent.slice(0, before.length).map(moveOf)).toEqual(before);
      }
    }
  });
});

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

describe('the view of a finished meta-episode', () => {
  /** The position `view` leads to when the person plays `key` there. */
  const after = (agent: PlayAgentV1, view: AgentPlayView, key: string) =>
    agent.model.apply(
      view.state,
      agent.model.legalActions(view.state).find((a) => agent.model.actionKey(a) === key),
    );

  it("Kuhn Poker: shows the hand as the person's closing call left it, not the bet it answered", async () => {
    const agent = teacherAgent({ game: 'kuhn-poker' });
    const sessions = new AgentSessions([agent]);
    const { seen, final } = await playOut(sessions, await sessions.start('teacher', 1, 4), (l) => l.at(-1)!);
    const last = seen.at(-1)!;
    expect(final.status).toBe('finished');
    expect(final.state).toEqual(after(agent, last, last.legal.at(-1)!));
    expect(agent.model.isTerminal(final.state)).toBe(true);
  });

  it("Tic-Tac-Toe: the finished board holds the person's last stone", async () => {
    const agent = teacherAgent();
    const sessions = new AgentSessions([agent]);
    const { seen, final } = await playOut(sessions, await sessions.start('teacher', 2, 4), (l) => l[0]!);
    const last = seen.at(-1)!;
    expect(last.attempt).toBe(1);
    // The person is O; the agent's moves only add X stones.
    expect((final.state as { o: number }).o).toBe((after(agent, last, last.legal[0]!) as { o: number }).o);
  });

  it('shows no position when the agent ended the last attempt before the person moved in it', async () => {
    const sessions = new AgentSessions([teacherAgent({ forfeitFrom: 1 })]);
    const { seen, final } = await playOut(sessions, await sessions.start('teacher', 2, 4), (l) => l[0]!);
    expect(seen.every((v) => v.attempt === 0)).toBe(true);
    expect(final).toMatchObject({ status: 'finished', attempt: 1, state: null, legal: [] });
    expect(final.results.map((r) => r.attempt)).toEqual([0, 1]);
    const lastAttempt = final.agent.filter((t) => t.attempt === 1 && t.kind === 'move');
    expect(lastAttempt.length).toBeGreaterThan(0);
    expect(lastAttempt.every((t) => !t.valid)).toBe(true);
  });

  it('an agent that ends every attempt before the person moves finishes at once, with no position', async () => {
    const sessions = new AgentSessions([teacherAgent({ forfeitFrom: 0 })]);
    const view = await sessions.start('teacher', 2, 4);
    expect(view).toMatchObject({ status: 'finished', attempt: 1, state: null, legal: [], moves: [] });
    expect(view.results.map((r) => r.attempt)).toEqual([0, 1]);
    expect(new Set(view.agent.map((t) => t.attempt))).toEqual(new Set([0, 1]));
  });
});

describe('moves that arrive while the agent is still answering', () => {
  it('a second move on the same view is refused (409) and the session plays on', async () => {
    const sessions = new AgentSessions([teacherAgent({ seats: 'second' })]);
    const start = await sessions.start('teacher', 2, 4);
    expect(start).toMatchObject({ status: 'your-move', seat: 0, moves: [] });
    // A double click: both moves were made on the opening view (no moves yet).
    const [first, second] = await Promise.allSettled([
      sessions.move(start.session, start.legal[0]!, 0),
      sessions.move(start.session, start.legal[1]!, 0),
    ]);
    expect(first.status).toBe('fulfilled');
    expect(second).toMatchObject({ status: 'rejected', reason: { status: 409 } });
    const view = sessions.get(start.session);
    expect(view.moves).toEqual([{ by: 'you', action: start.legal[0] }]);
    const { final } = await playOut(sessions, view, (l) => l[0]!);
    expect(final.status).toBe('finished');
  });

  it('without the view count, each move is checked against the position the one before it left', async () => {
    const sessions = new AgentSessions([teacherAgent({ seats: 'second' })]);
    const start = await sessions.start('teacher', 1, 4);
    const cell = start.legal[0]!;
    // The same cell twice: the second click finds it taken, and the first move stands.
    const [first, again] = await Promise.allSettled([
      sessions.move(start.session, cell),
      sessions.move(start.session, cell),
    ]);
    expect(first.status).toBe('fulfilled');
    expect(again).toMatchObject({
      status: 'rejected',
      reason: { message: expect.stringMatching(/not a legal move/) },
    });
    expect(sessions.get(start.session).moves).toEqual([{ by: 'you', action: cell }]);
  });

  it('a move whose replay fails is dropped: the session stays at the position before it', async () => {
    const agent = teacherAgent({ seats: 'second' });
    let fail = false;
    const failing: PlayAgentV1 = {
      ...agent,
      play: (opponent, seed, attempts) =>
        fail ? Promise.reject(new Error('the model is gone')) : agent.play(opponent, seed, attempts),
    };
    const sessions = new AgentSessions([failing]);
    const start = await sessions.start('teacher', 1, 4);
    fail = true;
    await expect(sessions.move(start.session, start.legal[0]!, 0)).rejects.toThrow(/the model is gone/);
    expect(sessions.get(start.session)).toEqual(start);
    fail = false;
    const next = await sessions.move(start.session, start.legal[1]!, 0);
    expect(next.moves).toEqual([{ by: 'you', action: start.legal[1] }]);
  });
});
