import { describe, expect, it } from 'vitest';
import { AgentSessions } from './agent-play';
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
