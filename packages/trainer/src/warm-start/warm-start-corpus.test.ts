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
