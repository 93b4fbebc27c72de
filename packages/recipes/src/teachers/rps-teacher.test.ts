import { createRng, evaluate, type MetaEpisodeMetricsV1 } from '@mage-rl/core';
import { createRps, type RpsThrow } from '@mage-rl/envs/rps';
import { createOpponent, POPULATION_PRESETS, RPS_OOD_BOTS } from '@mage-rl/opponents';
import { createMemory } from '@mage-rl/reflection';
import { describe, expect, it } from 'vitest';
import { createTeacher } from './create-teacher';
import { rpsTeacherThrows } from './rps-teacher';

const TRAINING = (POPULATION_PRESETS.rps.balanced ?? []).map((e) => e.id);

/** The teacher's metrics over K = 3 attempts, every attempt played, with its notes (or no memory). */
async function teacherMetrics(
  opponents: readonly string[],
  options: { adaptive: number; memory?: 'reflection' | 'none'; style?: 'compact' | 'verbose' },
): Promise<MetaEpisodeMetricsV1> {
  const env = createRps();
  const style = options.style ?? 'compact';
  const result = await evaluate({
    env,
    policy: createTeacher(env, { style, adaptive: options.adaptive }),
    memory: createMemory({ mode: options.memory ?? 'reflection' }),
    opponents,
    makeOpponent: (id: string) => createOpponent('rps', id),
    episodes: 12,
    attempts: 3,
    earlyStop: false,
    style,
    seed: 'rps-teacher',
  });
  return result.metrics;
}

const sweeps = (m: MetaEpisodeMetricsV1) => m.overall.perAttempt.map((a) => a.success.rate);
/** Wins per throw: the return over 10 per throw won and 3 throws. */
const score = (m: MetaEpisodeMetricsV1) => m.overall.perAttempt.map((a) => a.meanReturn / 30);
const lost = { success: false, draw: false, truncated: false, label: 'loss' };

describe('Rock-Paper-Scissors teacher', () => {
  it('note-blind it is the memoryless best response: about 4/9 of the throws and 1/9 sweeps, every attempt', async () => {
    const blind = await teacherMetrics(TRAINING, { adaptive: 0 });
    for (const k of [0, 1, 2]) {
      expect(score(blind)[k]).toBeGreaterThan(0.38);
      expect(score(blind)[k]).toBeLessThan(0.51);
      expect(sweeps(blind)[k]).toBeLessThan(0.2);
    }
  });

  it('reading its notes it is the reader of the ceiling: 4/9 → 26/27 → 1 of the throws, every bot swept by attempt 3', async () => {
    for (const style of ['compact', 'verbose'] as const) {
      const adaptive = await teacherMetrics(TRAINING, { adaptive: 1, style });
      expect(score(adaptive)[0]).toBeLessThan(0.51);
      expect(score(adaptive)[1]).toBeGreaterThan(0.92);
      expect(sweeps(adaptive)[1]).toBeGreaterThan(0.8);
      expect(sweeps(adaptive)[2]).toBe(1);
    }
  });

  it('adapts only from notes in its context: with no memory it plays as the note-blind teacher', async () => {
    const adaptive = await teacherMetrics(TRAINING, { adaptive: 1, memory: 'none' });
    const blind = await teacherMetrics(TRAINING, { adaptive: 0, memory: 'none' });
    expect(sweeps(adaptive)).toEqual(sweeps(blind));
    expect(score(adaptive)).toEqual(score(blind));
  });

  it('narrows the bots from the noted rounds, in both styles', () => {
    // Rock three times against paper: constant-rock, or lose-last-rock (it throws what loses to paper).
    const compact = [
      {
        outcome: lost,
        events: ['you paper opp rock win', 'invalid', 'you paper opp rock win', 'you paper opp rock win'],
      },
    ];
    expect(rpsTeacherThrows(3, compact, [])).toEqual(['paper']);
    // After scissors the two differ (rock or paper): a coin flip, which the next round settles.
    expect(rpsTeacherThrows(3, compact, [['scissors', 'rock']])).toEqual(['paper', 'scissors']);
    const verbose = [
      {
        outcome: lost,
        events: [
          'You threw rock, the opponent threw paper: you lose.',
          'You threw rock, the opponent threw scissors: you win.',
        ],
      },
    ];
    // Paper, then scissors after rock: cycle-paper or lose-last-paper; both open paper.
    expect(rpsTeacherThrows(2, verbose, [])).toEqual(['scissors']);
    // Without notes every opening is equally likely.
    expect(rpsTeacherThrows(3, undefined, [])).toEqual(['rock', 'paper', 'scissors']);
  });

  it('breaks ties at random, rock : paper : scissors as 4 : 2 : 1, and plays the one best throw otherwise', async () => {
    const env = createRps();
    const teacher = createTeacher(env, { style: 'compact' });
    const openings = new Map<string, number>();
    let forced = 0;
    for (const bot of TRAINING.slice(0, 6)) {
      const ep = env.createEpisode({
        seed: 1,
        seat: 'first',
        style: 'compact',
        rng: createRng(1),
        opponent: createOpponent('rps', bot),
      });
      let observation = ep.reset(0);
      while (!ep.done) {
        const mine = (observation.info.you as string[]).map((t) => t as RpsThrow);
        const rounds = (observation.info.opp as string[]).map(
          (t, i) => [mine[i] ?? 'rock', t as RpsThrow] as const,
        );
        const best = rpsTeacherThrows(3, undefined, rounds);
        const texts = new Set<string>();
        for (let seed = 0; seed < 70; seed++) {
          const facts = { slot: 's', taskSeed: seed, attempt: 0, observation };
          const [r] = await teacher.generate([{ messages: [], phase: 'play', seed, facts }]);
          const text = r?.text ?? '';
          texts.add(text);
          if (ep.turn === 0) openings.set(text, (openings.get(text) ?? 0) + 1);
        }
        for (const text of texts) expect(best.map((t) => `<action> ${t} </action>`)).toContain(text);
        if (best.length === 1) {
          forced++;
          expect(texts.size).toBe(1);
        }
        observation = ep.step(ep.parse(`<action> ${best[0]} </action>`)).observation;
      }
    }
    expect(forced).toBeGreaterThan(0);
    // Every opening ties: 420 openings drawn 4 : 2 : 1 (expected 240, 120, 60).
    const share = (t: string) => (openings.get(`<action> ${t} </action>`) ?? 0) / 420;
    expect(share('rock')).toBeGreaterThan(0.47);
    expect(share('rock')).toBeLessThan(0.67);
    expect(share('paper')).toBeGreaterThan(0.2);
    expect(share('paper')).toBeLessThan(0.37);
    expect(share('scissors')).toBeGreaterThan(0.07);
    expect(share('scissors')).toBeLessThan(0.22);
  });

  it('note-blind it plays the same throw whatever facts.earlier holds', async () => {
    const env = createRps();
    const teacher = createTeacher(env, { style: 'compact' });
    const ep = env.createEpisode({
      seed: 1,
      seat: 'first',
      style: 'compact',
      rng: createRng(1),
      opponent: createOpponent('rps', RPS_OOD_BOTS[0]!.id),
    });
    const observation = ep.reset(0);
    const earlier = [{ outcome: lost, events: ['you paper opp rock win'] }];
    for (let seed = 0; seed < 20; seed++) {
      const request = (e: typeof earlier) => ({
        messages: [],
        phase: 'play' as const,
        seed,
        facts: { slot: 's', taskSeed: 1, attempt: 1, observation, earlier: e },
      });
      const [a] = await teacher.generate([request([])]);
      const [b] = await teacher.generate([request(earlier)]);
      expect(b?.text).toBe(a?.text);
    }
  });
});
