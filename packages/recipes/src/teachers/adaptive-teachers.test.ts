import { createRng, type EnvV1, evaluate, type MetaEpisodeMetricsV1, type PromptStyle } from '@mage-rl/core';
import { createDoors } from '@mage-rl/envs/doors';
import { createKuhnPoker } from '@mage-rl/envs/kuhn-poker';
import { createSokoban } from '@mage-rl/envs/sokoban';
import { createTicTacToe } from '@mage-rl/envs/tictactoe';
import { createTreasure } from '@mage-rl/envs/treasure';
import { createOpponent, PATTERN_NAMES } from '@mage-rl/opponents';
import { createMemory } from '@mage-rl/reflection';
import { describe, expect, it } from 'vitest';
import { createTeacher } from './create-teacher';
import { doorsReaderDoor } from './doors-teacher';
import { adaptiveTicTacToeMove, consistentPatterns } from './tictactoe-teacher';
import { treasureCandidates, treasureReaderProbe } from './treasure-teacher';

/** The teacher's metrics over K = 3 attempts with its notes (or no memory) against `opponents`. */
async function teacherMetrics<S, A>(
  env: EnvV1<S, A>,
  opponents: readonly string[],
  options: {
    adaptive: number;
    memory?: 'reflection' | 'none';
    style?: PromptStyle;
    episodes?: number;
    noise?: number;
  },
): Promise<MetaEpisodeMetricsV1> {
  const style = options.style ?? 'compact';
  const result = await evaluate({
    env,
    policy: createTeacher(env, {
      style,
      adaptive: options.adaptive,
      ...(options.noise === undefined ? {} : { noise: options.noise }),
    }),
    memory: createMemory({ mode: options.memory ?? 'reflection' }),
    ...(opponents.length > 0
      ? { opponents, makeOpponent: (id: string) => createOpponent(env.id, id) as never }
      : {}),
    episodes: options.episodes ?? 16,
    attempts: 3,
    earlyStop: false,
    seats: { mixed: 0.5 },
    style,
    seed: 'adaptive-teachers',
  });
  return result.metrics;
}

const winRate = (m: MetaEpisodeMetricsV1, attempt: number) => {
  const a = m.overall.perAttempt[attempt]!;
  return a.success.rate;
};

describe('Tic-Tac-Toe teacher that reads its notes', () => {
  const patterns = PATTERN_NAMES.map((n) => `pattern-${n}`);

  it('identifies the pattern player from the noted moves and beats it from the second attempt on', async () => {
    for (const style of ['compact', 'verbose'] as const) {
      const env = createTicTacToe();
      const adaptive = await teacherMetrics(env, patterns, { adaptive: 1, style });
      const blind = await teacherMetrics(env, patterns, { adaptive: 0, style });
      // Attempt 1 has no notes: both play the same.
      expect(winRate(adaptive, 0)).toBe(winRate(blind, 0));
      for (const k of [1, 2]) {
        expect(winRate(adaptive, k)).toBeGreaterThanOrEqual(0.95);
        expect(winRate(adaptive, k)).toBeGreaterThan(winRate(blind, k));
      }
    }
  });

  it('adapts only from notes in its context: with no memory it plays as the note-blind teacher', async () => {
    const env = createTicTacToe();
    const adaptive = await teacherMetrics(env, patterns, { adaptive: 1, memory: 'none' });
    const blind = await teacherMetrics(env, patterns, { adaptive: 0, memory: 'none' });
    expect(adaptive.overall.perAttempt.map((a) => a.success.rate)).toEqual(
      blind.overall.perAttempt.map((a) => a.success.rate),
    );
  });

  it('plays as before when no pattern explains the notes', () => {
    // The opponent answered (2, 2) to an opening at (1, 1): no pattern that plays the centre second does so…
    const events = ['you ( 1 , 1 ) opponent ( 3 , 3 )', 'you ( 1 , 2 ) opponent ( 1 , 3 )'];
    const outcome = { success: false, draw: false, truncated: false, label: 'loss' };
    const board = ['...', '...', '...'];
    const candidates = consistentPatterns(board, false, [{ outcome, events }]);
    expect(candidates).not.toContain('centre-first');
    // …and a reply no pattern makes leaves the teacher to its usual play.
    const none = [{ outcome, events: ['you ( 2 , 2 ) opponent ( 2 , 1 )'] }];
    expect(consistentPatterns(board, false, none)).toEqual([]);
    expect(adaptiveTicTacToeMove(board, false, none)).toBeNull();
  });
});

describe('Kuhn Poker teacher that reads its notes', () => {
  it('earns more against the aggressive archetype after its first hand than the equilibrium teacher', async () => {
    const env = createKuhnPoker({ mode: 'new-deal', revealShowdown: false });
    const adaptive = await teacherMetrics(env, ['aggressive'], { adaptive: 1, episodes: 400 });
    const blind = await teacherMetrics(env, ['aggressive'], { adaptive: 0, episodes: 400 });
    const chips = (m: MetaEpisodeMetricsV1, k: number) => m.overall.perAttempt[k]!.meanReturn / 5;
    // The adaptation ceiling is −0.167 → 0.333 → 0.333 chips per hand; the equilibrium earns ~0.06.
    expect(chips(adaptive, 2) - chips(adaptive, 0)).toBeGreaterThan(0.2);
    expect(chips(adaptive, 2)).toBeGreaterThan(chips(blind, 2) + 0.1);
  });

  it('draws the adaptive share per meta-episode', async () => {
    const env = createKuhnPoker({ mode: 'new-deal', revealShowdown: false });
    const half = await teacherMetrics(env, ['aggressive'], { adaptive: 0.5, episodes: 400 });
    const all = await teacherMetrics(env, ['aggressive'], { adaptive: 1, episodes: 400 });
    const none = await teacherMetrics(env, ['aggressive'], { adaptive: 0, episodes: 400 });
    const chips = (m: MetaEpisodeMetricsV1) => m.overall.perAttempt[2]!.meanReturn;
    expect(chips(half)).toBeGreaterThan(chips(none));
    expect(chips(half)).toBeLessThan(chips(all));
  });
});

describe('Sokoban teacher that reads its notes', () => {
  it('plays the solver once its notes record an attempt: no failure repeats', async () => {
    const env = createSokoban({ boxes: 1 });
    const adaptive = await teacherMetrics(env, [], { adaptive: 1, noise: 0.6, episodes: 24 });
    const blind = await teacherMetrics(env, [], { adaptive: 0, noise: 0.6, episodes: 24 });
    expect(winRate(adaptive, 0)).toBe(winRate(blind, 0));
    expect(winRate(blind, 0)).toBeLessThan(1);
    expect(winRate(adaptive, 1)).toBe(1);
    expect(winRate(adaptive, 2)).toBe(1);
    expect(winRate(adaptive, 2)).toBeGreaterThan(winRate(blind, 2));
  });
});

const lost = { success: false, draw: false, truncated: false, label: 'loss' };
const rates = (m: MetaEpisodeMetricsV1) => m.overall.perAttempt.map((a) => a.success.rate);

describe('Treasure teacher that reads its notes', () => {
  it('is the Bayes reader on 3×3: the centre first, then the cell the answer names — every later attempt wins', async () => {
    for (const style of ['compact', 'verbose'] as const) {
      const env = createTreasure();
      const adaptive = rates(await teacherMetrics(env, [], { adaptive: 1, style, episodes: 27 }));
      const blind = rates(await teacherMetrics(env, [], { adaptive: 0, style, episodes: 27 }));
      expect(adaptive[1]).toBe(1);
      expect(adaptive[2]).toBe(1);
      expect(blind[2]).toBeLessThan(1);
    }
  });

  it('finds every 4×4 cell by the third attempt, as the exact plan promises', async () => {
    const adaptive = rates(
      await teacherMetrics(createTreasure({ width: 4, height: 4 }), [], { adaptive: 1, episodes: 32 }),
    );
    expect(adaptive[2]).toBe(1);
  });

  it('with no memory it cannot read anything: attempts do not improve', async () => {
    const env = createTreasure();
    const none = rates(await teacherMetrics(env, [], { adaptive: 1, memory: 'none', episodes: 18 }));
    // Without notes the reader probes the centre every attempt: the same success each time.
    expect(none[1]).toBe(none[0]);
    expect(none[2]).toBe(none[0]);
  });

  it('with a reader opening probes the centre first in that share of meta-episodes, then reads nothing', async () => {
    const env = createTreasure();
    const observation = { text: '', anchor: '', info: { width: 3, height: 3, probes: [], hint: '' } };
    const earlier = [{ outcome: lost, events: ['probe 2 2 south west'] }];
    const probes = async (readerOpening: number, attempt: number) => {
      const teacher = createTeacher(env, { readerOpening });
      const requests = Array.from({ length: 200 }, (_, i) => ({
        messages: [],
        phase: 'play' as const,
        seed: 7 * i,
        facts: { slot: `s${i % 4}`, taskSeed: i, attempt, observation, earlier: attempt > 0 ? earlier : [] },
      }));
      return (await teacher.generate(requests)).map((r) => r.text);
    };
    const centre = env.formatAction(4, 'compact');
    const share = (texts: string[], text: string) => texts.filter((t) => t === text).length / texts.length;
    expect(share(await probes(1, 0), centre)).toBe(1);
    const half = share(await probes(0.5, 0), centre);
    expect(half).toBeGreaterThan(0.4);
    expect(half).toBeLessThan(0.7);
    expect(share(await probes(0, 0), centre)).toBeLessThan(0.2);
    // Later attempts stay note-blind: the note names the one possible cell, yet probes are spread.
    expect(share(await probes(1, 1), env.formatAction(6, 'compact'))).toBeLessThan(0.2);
  });

  it('narrows the rectangle of possible cells from the recorded answers, in both styles', () => {
    const earlier = [{ outcome: lost, events: ['probe 2 2 south west'] }];
    expect(treasureCandidates(3, 3, [])).toEqual({ rows: [0, 2], cols: [0, 2] });
    // South west of the centre is the single cell row 3 col 1 (row-major 6).
    expect(treasureReaderProbe(3, 3, 1, earlier, [])).toBe(6);
    const verbose = [{ outcome: lost, events: ['You probed row 2, column 2: the treasure is north of it.'] }];
    expect(treasureReaderProbe(3, 3, 1, verbose, [])).toBe(1);
    const found = [{ outcome: { ...lost, success: true, label: 'win' }, events: ['probe 3 3 found'] }];
    expect(treasureReaderProbe(3, 3, 1, found, [])).toBe(8);
    // Contradicting records: no plan (the teacher then probes at random).
    const contradiction = [{ outcome: lost, events: ['probe 1 1 north'] }];
    expect(treasureReaderProbe(3, 3, 1, contradiction, [])).toBeNull();
  });
});

describe('Doors teacher that reads its notes', () => {
  it('never opens an empty door twice: 3 doors are all found by the third attempt', async () => {
    const env = createDoors();
    const adaptive = rates(await teacherMetrics(env, [], { adaptive: 1, episodes: 30 }));
    const blind = rates(await teacherMetrics(env, [], { adaptive: 0, episodes: 30 }));
    expect(adaptive[0]).toBe(blind[0]);
    expect(adaptive[2]).toBe(1);
    expect(blind[2]).toBeLessThan(1);
  });

  it('picks the recorded prize door, else a door not recorded empty', () => {
    const rng = createRng('doors-reader');
    const empty = [
      { outcome: lost, events: ['door 1 empty'] },
      { outcome: lost, events: ['You opened door 3: empty.'] },
    ];
    for (let i = 0; i < 20; i++) expect(doorsReaderDoor(3, empty, rng)).toBe(2);
    const prize = [{ outcome: { ...lost, success: true, label: 'win' }, events: ['door 3 prize'] }];
    expect(doorsReaderDoor(4, prize, rng)).toBe(3);
  });
});

describe('note-blind hidden-target teachers never read their notes', () => {
  it('play the same answer whatever facts.earlier holds', async () => {
    for (const env of [createTreasure(), createDoors()] as EnvV1<unknown, unknown>[]) {
      const teacher = createTeacher(env, { style: 'compact' });
      const ep = env.createEpisode({ seed: 1, seat: 'first', style: 'compact', rng: createRng(1) });
      const observation = ep.reset(0);
      const request = (earlier: readonly { outcome: typeof lost; events: string[] }[]) => ({
        messages: [],
        phase: 'play' as const,
        seed: 9,
        facts: { slot: 's', taskSeed: 1, attempt: 1, observation, earlier },
      });
      const events = env.id === 'doors' ? ['door 1 empty', 'door 2 empty'] : ['probe 2 2 north'];
      for (let seed = 0; seed < 20; seed++) {
        const [a] = await teacher.generate([{ ...request([]), seed }]);
        const [b] = await teacher.generate([{ ...request([{ outcome: lost, events }]), seed }]);
        expect(b?.text).toBe(a?.text);
      }
    }
  });
});
