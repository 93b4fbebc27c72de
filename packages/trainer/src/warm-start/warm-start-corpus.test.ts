import { describe, expect, it } from 'vitest';
import { envPlans, teacherCorpus } from './warm-start-corpus';

/** How many meta-episodes of the reflection corpus reached each attempt (first play turn of it). */
async function attemptsReached(earlyStop: boolean): Promise<number[]> {
  const plans = envPlans({ envs: ['tictactoe'], preset: 'smoke', seed: 3, warmStart: { earlyStop } });
  const corpus = await teacherCorpus(plans, { seed: 3 }, () => {});
  const counts = [0, 0, 0];
  // The no-memory layout plays one attempt, so attempts 2 and 3 come from the reflection layout.
  for (const e of corpus.examples) if (e.phase === 'play' && e.turn === 0) counts[e.attempt]! += 1;
  return counts;
}

describe('teacherCorpus', () => {
  it('plays every attempt when warmStart.earlyStop is false, as training does when it is true', async () => {
    const stopped = await attemptsReached(true);
    const every = await attemptsReached(false);
    // Every meta-episode plays attempt 1 either way; without early stop all of them reach attempts 2 and 3.
    expect(every[0]).toBe(stopped[0]);
    expect(every[1]).toBeGreaterThan(stopped[1] ?? 0);
    expect(every[2]).toBe(every[1]);
  });
});

describe('envPlans', () => {
  it("takes the reflecting layout's memory from warmStart.memory, and MAGE's memory without it", async () => {
    const plans = (memory?: 'reflection+history') =>
      envPlans({
        envs: ['tictactoe'],
        preset: 'smoke',
        seed: 3,
        ...(memory ? { warmStart: { memory } } : {}),
      });
    expect(plans()[0].layouts.map((l) => l.config.rollout.memory)).toEqual(['reflection', 'none']);
    const withHistory = plans('reflection+history');
    expect(withHistory[0].layouts.map((l) => l.config.rollout.memory)).toEqual([
      'reflection+history',
      'none',
    ]);
    // Attempt 2's prompts then show attempt 1's moves as the env reported them, not only in its note.
    const attempt1Moves = async (p: ReturnType<typeof plans>) => {
      const corpus = await teacherCorpus(p, { seed: 3 }, () => {});
      const second = corpus.examples.find((e) => e.phase === 'play' && e.attempt === 1 && e.turn === 0);
      const earlier = second?.messages.slice(0, -1) ?? [];
      return earlier.filter((m) => m.role === 'user' && m.content.startsWith('you (')).length;
    };
    expect(await attempt1Moves(withHistory)).toBeGreaterThan(0);
    expect(await attempt1Moves(plans())).toBe(0);
  });
});
