import type { MemorySlotInfoV1, OpponentV1, PolicyRequestV1, PolicyV1, RowRecord } from '@mage-rl/spec';
import { AbortedError, ConfigError, createPopulation, MageError } from '@mage-rl/spec';
import { describe, expect, it } from 'vitest';
import {
  createNimEnv,
  type NimAction,
  type NimState,
  nimGame,
  nimOpponents,
  nimPileOf,
  randomLegalOpponent,
  scriptedPolicy,
} from '../testing';
import { RolloutFailureError, type RunMetaEpisodesOptions, type RunnerEvent } from './options';
import { iterateMetaEpisodes, runMetaEpisodes } from './run-meta-episodes';
import { simpleMemory } from './simple-memory.test-helper';

const env = createNimEnv();
const makeOpponent = nimOpponents(randomLegalOpponent(nimGame));

/** Optimal Nim: leave a multiple of 3. Reflects with a fixed note. */
const optimal = (): PolicyV1 & { calls: number } =>
  scriptedPolicy((r) =>
    r.phase === 'reflect'
      ? '<remark>take the remainder mod 3</remark>'
      : `<action>${nimPileOf(r) % 3 || 1}</action>`,
  );
/** Always takes 1: loses or wins depending on the pile, the same way every attempt. */
const takeOne = (): PolicyV1 & { calls: number } =>
  scriptedPolicy((r) => (r.phase === 'reflect' ? 'no tag here' : '<action>1</action>'));

const base = {
  env,
  makeOpponent,
  opponents: ['first-legal'],
  groups: 4,
  groupSize: 2,
  seed: 7,
} as const;

/** Runs `base` with `policy`, a fresh memory and `overrides`. */
function run(
  policy: PolicyV1,
  overrides: Partial<RunMetaEpisodesOptions<NimState, NimAction>> & {
    readonly onEvent?: (event: RunnerEvent) => void;
  } = {},
) {
  return runMetaEpisodes({ ...base, policy, memory: simpleMemory(), ...overrides });
}

function slotRows(rows: readonly RowRecord[], slot: string): RowRecord[] {
  return rows.filter((r) => r.slot === slot);
}

describe('runMetaEpisodes', () => {
  it('is deterministic and records groups, slots and rows consistently', async () => {
    const a = await run(takeOne());
    const b = await run(takeOne());
    expect(a).toEqual(b);
    expect(a.groups).toHaveLength(4);
    expect(a.slots).toHaveLength(8);
    expect(a.attempts).toBe(3);
    for (const group of a.groups) {
      const slots = a.slots.filter((s) => s.group === group.group);
      expect(slots.map((s) => s.slot)).toEqual(group.slots);
      // Slots of a group share the task: same seed, same seat, same opponent, same play.
      for (const s of slots) expect(s.task).toEqual(group.task);
      expect(new Set(slots.map((s) => JSON.stringify(s.attempts))).size).toBe(1);
    }
    // Rows are grouped by slot in slot order, chronological inside a slot.
    const order = a.rows.map((r) => r.slot).filter((s, i, all) => s !== all[i - 1]);
    expect(order).toEqual(a.slots.map((s) => s.slot));
    for (const slot of a.slots) {
      const rows = slotRows(a.rows, slot.slot).filter((r) => r.phase === 'play');
      for (const attempt of slot.attempts) {
        const mine = rows.filter((r) => r.attempt === attempt.attempt);
        expect(mine.map((r) => r.turn)).toEqual(mine.map((_, i) => i));
        expect(mine.reduce((s, r) => s + r.reward, 0)).toBe(attempt.return);
        expect(mine).toHaveLength(attempt.turns);
      }
    }
  });

  it('anchors play rows with the state key and opponent id, reflect rows with reflection|opponent', async () => {
    const batch = await run(takeOne());
    for (const row of batch.rows) {
      if (row.phase === 'play') expect(row.anchor).toMatch(/^nim:\d+\|first-legal$/);
      else expect(row.anchor).toBe('reflection|first-legal');
    }
    // The anchor is the state the agent acted *from*: the first row of every attempt anchors the pile.
    const first = batch.rows.find((r) => r.phase === 'play') as RowRecord;
    expect(first.promptText).toContain(`There are ${first.anchor.split(/[:|]/)[1]} stones left.`);
  });

  it('restarts every attempt from the identical initial state', async () => {
    const batch = await run(takeOne(), { earlyStop: false });
    for (const slot of batch.slots) {
      const firsts = slotRows(batch.rows, slot.slot).filter((r) => r.phase === 'play' && r.turn === 0);
      expect(firsts).toHaveLength(3);
      expect(new Set(firsts.map((r) => r.anchor)).size).toBe(1);
      // Same policy + same start + same opponent: every attempt plays out the same way.
      expect(new Set(slot.attempts.map((a) => `${a.outcome.label}/${a.turns}/${a.return}`)).size).toBe(1);
    }
  });

  it('places one reflect turn before every attempt k >= 1 and stops early after a success', async () => {
    const memory = simpleMemory();
    // Takes 1 in attempt 0 (wins on odd piles against take-1), plays optimally once it has a note.
    const learner = scriptedPolicy((r) =>
      r.phase === 'reflect'
        ? '<remark>take the remainder mod 3</remark>'
        : (r.messages[0]?.content ?? '').includes('note 0:')
          ? `<action>${nimPileOf(r) % 3 || 1}</action>`
          : '<action>1</action>',
    );
    const batch = await runMetaEpisodes({ ...base, groups: 8, policy: learner, memory });
    let sawWin = false;
    let sawLoss = false;
    for (const slot of batch.slots) {
      const rows = slotRows(batch.rows, slot.slot);
      const won = slot.attempts.findIndex((a) => a.outcome.success);
      if (won >= 0) {
        sawWin = true;
        expect(slot.attempts).toHaveLength(won + 1); // early stop
      } else {
        sawLoss = true;
        expect(slot.attempts).toHaveLength(3);
      }
      // Sequence: play rows of attempt 0, reflect(1), play rows of attempt 1, reflect(2), …
      const phases = rows.map((r) => `${r.phase}${r.attempt}`).filter((p, i, all) => p !== all[i - 1]);
      const expected = slot.attempts.flatMap((a) =>
        a.attempt === 0 ? ['play0'] : [`reflect${a.attempt}`, `play${a.attempt}`],
      );
      expect(phases).toEqual(expected);
      for (const r of rows.filter((x) => x.phase === 'reflect')) {
        expect(r.turn).toBe(-1);
        expect(r.reward).toBe(0);
        expect(r.valid).toBe(true);
      }
      // Notes are attached to the attempt they reflect on; never to the last one.
      slot.attempts.forEach((a, i) => {
        expect(a.reflection).toBe(i < slot.attempts.length - 1 ? 'take the remainder mod 3' : undefined);
      });
    }
    expect(sawWin && !sawLoss).toBe(true);
    // Odd piles are won at once (one attempt), even piles after one reflection (two attempts).
    expect(new Set(batch.slots.map((s) => s.attempts.map((a) => a.outcome.label).join()))).toEqual(
      new Set(['win', 'loss,win']),
    );
    // attemptEnded ran once per played attempt, after the reflection was attached.
    expect(memory.ended).toHaveLength(batch.slots.reduce((s, x) => s + x.attempts.length, 0));
    expect(memory.ended.filter((e) => e.endsWith(':take the remainder mod 3')).length).toBe(
      batch.rows.filter((r) => r.phase === 'reflect').length,
    );
    expect(memory.commits).toBe(1);
  });

  it('keeps playing after a success when earlyStop is off, and skips reflect turns for non-reflecting memories', async () => {
    const on = await run(optimal(), { earlyStop: false });
    expect(on.slots.every((s) => s.attempts.length === 3)).toBe(true);
    expect(on.rows.filter((r) => r.phase === 'reflect')).toHaveLength(on.slots.length * 2);
    const off = await runMetaEpisodes({
      ...base,
      policy: optimal(),
      memory: simpleMemory({ reflects: false }),
      earlyStop: false,
    });
    expect(off.rows.filter((r) => r.phase === 'reflect')).toHaveLength(0);
    expect(off.slots.map((s) => s.attempts)).toEqual(
      on.slots.map((s) => s.attempts.map(({ reflection: _, ...rest }) => rest)),
    );
  });

  it('flags a reflection without <remark> invalid and stores an empty note', async () => {
    const batch = await run(takeOne(), { groups: 1, groupSize: 1, earlyStop: false });
    const reflects = batch.rows.filter((r) => r.phase === 'reflect');
    expect(reflects).toHaveLength(2);
    expect(reflects.every((r) => !r.valid)).toBe(true);
    expect(batch.slots[0]?.attempts[0]?.reflection).toBe('');
  });

  it('marks a response stopped by its token budget as cut, and tells play turns which noted attempts came before', async () => {
    const inner = optimal();
    const seen: (number | undefined)[] = [];
    const budgeted: PolicyV1 = {
      specificationVersion: 'v1',
      id: 'budgeted',
      async generate(requests) {
        for (const r of requests) if (r.phase === 'play') seen.push(r.facts?.earlier?.length);
        const out = await inner.generate(requests);
        return out.map((o, i) =>
          requests[i]?.phase === 'reflect' ? { ...o, finishReason: 'length' as const } : o,
        );
      },
    };
    const batch = await run(budgeted, { groups: 1, groupSize: 1, earlyStop: false });
    const reflects = batch.rows.filter((r) => r.phase === 'reflect');
    expect(reflects.length).toBeGreaterThan(0);
    expect(reflects.every((r) => r.cut === true)).toBe(true);
    expect(batch.rows.filter((r) => r.phase === 'play').every((r) => r.cut === undefined)).toBe(true);
    // Attempt 1 has no earlier attempts; later ones see each earlier attempt whose note is valid.
    expect(seen[0]).toBeUndefined();
    expect(Math.max(...seen.map((n) => n ?? 0))).toBe(2);
  });

  it('records garbage responses as invalid turns with zero reward and a truncated attempt', async () => {
    const batch = await run(
      scriptedPolicy(() => 'I am not sure'),
      { groups: 1, groupSize: 1, attempts: 1 },
    );
    const rows = batch.rows;
    expect(rows).toHaveLength(env.maxTurns);
    expect(rows.every((r) => !r.valid && r.reward === 0)).toBe(true);
    expect(batch.slots[0]?.attempts[0]).toMatchObject({
      turns: env.maxTurns,
      invalidTurns: env.maxTurns,
      return: 0,
    });
    expect(batch.slots[0]?.attempts[0]?.outcome.truncated).toBe(true);
  });

  it('calls the policy once per tick over the active slots, with per-request seeds independent of batching', async () => {
    const sizes: number[] = [];
    const seen = new Map<string, number[]>();
    const policy: PolicyV1 = {
      specificationVersion: 'v1',
      id: 'spy',
      async generate(requests) {
        sizes.push(requests.length);
        return requests.map((r) => ({
          text: r.phase === 'reflect' ? '<remark>x</remark>' : '<action>1</action>',
          promptTokens: [1, 2],
          tokens: [3],
          logprobs: [-0.5],
          finishReason: 'stop' as const,
        }));
      },
    };
    const events: RunnerEvent[] = [];
    const batch = await run(policy, { onEvent: (e) => events.push(e) });
    const ticks = events.filter((e) => e.type === 'turn-end');
    expect(sizes).toEqual(ticks.map((t) => (t.type === 'turn-end' ? t.rows.length : -1)));
    expect(sizes[0]).toBe(8);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(batch.rows.length);
    expect(batch.rows.every((r) => r.logprobs.length === 1 && r.promptTokens.length === 2)).toBe(true);
    expect(events[0]?.type).toBe('rollout-start');
    expect(events[events.length - 1]?.type).toBe('rollout-end');
    expect(events.filter((e) => e.type === 'slot-end')).toHaveLength(8);

    // A group's slots and its seeds are the same whether 2 or 5 groups run together.
    const seeds = async (groups: number) => {
      const spy: PolicyV1 = {
        specificationVersion: 'v1',
        id: 'seed-spy',
        async generate(requests) {
          return requests.map((r) => {
            const key = r.messages[0]?.content ?? '';
            seen.set(`${groups}:${key}`, [...(seen.get(`${groups}:${key}`) ?? []), r.seed ?? -1]);
            return {
              text: '<action>1</action>',
              promptTokens: [],
              tokens: [],
              logprobs: [],
              finishReason: 'stop' as const,
            };
          });
        },
      };
      return run(spy, {
        groups,
        population: createPopulation('p', [
          { id: 'first-legal', weight: 1 },
          { id: 'random', weight: 1 },
        ]),
        opponents: undefined as never,
      });
    };
    const small = await seeds(2);
    const large = await seeds(5);
    expect(large.slots.slice(0, 4)).toEqual(small.slots);
    expect(large.rows.slice(0, small.rows.length)).toEqual(small.rows);
  });

  it('mixed seats: within one group of fraction x N for every first N groups, keyed by global index', async () => {
    const seatsOf = async (mixed: number, groups: number, groupOffset = 0, seed = 7) =>
      (
        await run(takeOne(), { groups, groupOffset, groupSize: 1, seed, seats: { mixed }, attempts: 1 })
      ).groups.map((g) => g.task.seat);
    const batch = await seatsOf(0.3, 10);
    expect(batch.filter((s) => s === 'second')).toHaveLength(3);
    for (const [mixed, seed] of [
      [0.3, 7],
      [0.5, 1],
      [0.71, 2],
      [0, 3],
      [1, 4],
    ] as const) {
      const all = await seatsOf(mixed, 40, 0, seed);
      let seconds = 0;
      all.forEach((s, i) => {
        if (s === 'second') seconds++;
        expect(Math.abs(seconds - mixed * (i + 1))).toBeLessThan(1);
      });
      // Waves (groupOffset) get the seats of their global indices, whatever the wave sizes.
      const waves = [
        ...(await seatsOf(mixed, 7, 0, seed)),
        ...(await seatsOf(mixed, 1, 7, seed)),
        ...(await seatsOf(mixed, 32, 8, seed)),
      ];
      expect(waves).toEqual(all);
    }
    // A random threshold, not a fixed pattern: with f = 0.5 each pair holds one second seat, in either order.
    const half = await seatsOf(0.5, 40, 0, 1);
    const pairs = Array.from({ length: 20 }, (_, k) => `${half[2 * k]}/${half[2 * k + 1]}`);
    expect(new Set(pairs)).toEqual(new Set(['first/second', 'second/first']));
    const second = await run(takeOne(), { groups: 2, groupSize: 1, seats: 'second', attempts: 1 });
    expect(second.groups.every((g) => g.task.seat === 'second')).toBe(true);
  });

  it('passes slot facts to the memory and supports the transcript layout with the same actions', async () => {
    const log: MemorySlotInfoV1[] = [];
    const turn = await runMetaEpisodes({
      ...base,
      policy: optimal(),
      memory: simpleMemory({ log }),
      earlyStop: false,
    });
    expect(log.map((l) => l.slot)).toEqual(turn.slots.map((s) => s.slot));
    expect(log[0]).toMatchObject({
      envId: 'nim',
      layout: 'turn',
      style: 'verbose',
      attempts: 3,
      opponentId: 'first-legal',
    });
    const transcript = await run(optimal(), { context: 'transcript', earlyStop: false });
    const actions = (rows: readonly RowRecord[]) =>
      rows.map((r) => `${r.slot}/${r.attempt}/${r.turn}:${r.responseText}:${r.anchor}`);
    expect(actions(transcript.rows)).toEqual(actions(turn.rows));
    expect(transcript.rows.some((r) => r.promptText.includes('<|assistant|>'))).toBe(true);
  });

  it('uses the population per group, or the opponents list in turn', async () => {
    const listed = await run(takeOne(), { opponents: ['first-legal', 'random'] });
    expect(listed.groups.map((g) => g.task.opponentId)).toEqual([
      'first-legal',
      'random',
      'first-legal',
      'random',
    ]);
    expect(
      listed.rows.filter((r) => r.opponentId === 'random').every((r) => r.anchor.endsWith('|random')),
    ).toBe(true);
  });

  it('rejects bad options with a ConfigError naming the path', async () => {
    const bad = [
      { groups: 0 },
      { attempts: 1.5 },
      { context: 'chat' },
      { seats: { mixed: 2 } },
      { opponents: [] },
      { style: 'fancy' },
      { makeOpponent: undefined },
    ];
    for (const patch of bad) {
      const run = runMetaEpisodes({
        ...base,
        policy: takeOne(),
        memory: simpleMemory(),
        ...(patch as object),
      });
      await expect(run).rejects.toBeInstanceOf(ConfigError);
    }
  });
});

describe('runMetaEpisodes failures', () => {
  it('reports a throwing policy with slot, attempt and turn and keeps the rows', async () => {
    let calls = 0;
    const policy: PolicyV1 = {
      specificationVersion: 'v1',
      id: 'flaky',
      async generate(requests) {
        if (++calls === 3) throw new Error('out of memory');
        return requests.map(() => ({
          text: '<action>1</action>',
          promptTokens: [],
          tokens: [],
          logprobs: [],
          finishReason: 'stop' as const,
        }));
      },
    };
    const events: RunnerEvent[] = [];
    const error = await run(policy, { onEvent: (e) => events.push(e) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RolloutFailureError);
    const failure = error as RolloutFailureError;
    expect(MageError.isInstance(failure)).toBe(true);
    expect(failure.code).toBe('POLICY_FAILURE');
    expect(failure.context).toMatchObject({ slot: 'g0/s0', attempt: 0, turn: 2, phase: 'play', tick: 2 });
    expect(failure.partial.rows).toHaveLength(16);
    // No response came back, so there is no turn in progress to report.
    expect(failure.unsteppedTurn).toBeUndefined();
    expect(failure.message).toContain('out of memory');
    // The iterator yields the error before throwing it, so event consumers see the partial rows too.
    expect(events[events.length - 1]).toMatchObject({ type: 'rollout-error' });
  });

  it('reports a throwing opponent as OPPONENT_FAILURE at the turn it happened', async () => {
    const opponent: OpponentV1<NimState, NimAction> = {
      specificationVersion: 'v1',
      id: 'grumpy',
      act: (s) => {
        if (s.stones <= 4) throw new Error('I give up');
        return 1;
      },
    };
    const failure = (await run(takeOne(), { opponents: ['grumpy'], makeOpponent: () => opponent }).catch(
      (e: unknown) => e,
    )) as RolloutFailureError;
    expect(failure).toBeInstanceOf(RolloutFailureError);
    expect(failure.code).toBe('OPPONENT_FAILURE');
    expect(failure.context.phase).toBe('play');
    expect(failure.context.slot).toBe('g0/s0');
    expect(typeof failure.context.turn).toBe('number');
    expect(failure.partial.rows.length).toBeGreaterThan(0);
  });

  it('keeps the response whose env step the opponent interrupted beside the rows, never among them', async () => {
    class Interrupted extends Error {}
    // Nine stones, both sides take one: the agent's third move leaves four and the opponent throws.
    const opponent: OpponentV1<NimState, NimAction> = {
      specificationVersion: 'v1',
      id: 'grumpy',
      act: (s) => {
        if (s.stones <= 4) throw new Interrupted('a reply is not ready');
        return 1;
      },
    };
    const events: RunnerEvent[] = [];
    const failure = (await run(takeOne(), {
      env: createNimEnv({ minStones: 9, maxStones: 9 }),
      opponents: ['grumpy'],
      makeOpponent: () => opponent,
      onEvent: (e) => events.push(e),
    }).catch((e: unknown) => e)) as RolloutFailureError;
    expect(failure.code).toBe('OPPONENT_FAILURE');
    expect(failure.context).toMatchObject({ slot: 'g0/s0', attempt: 0, turn: 2, phase: 'play' });
    const unstepped = failure.unsteppedTurn;
    expect(unstepped).toEqual({
      group: 'g0',
      slot: 'g0/s0',
      opponentId: 'grumpy',
      attempt: 0,
      turn: 2,
      phase: 'play',
      // The state the agent acted from, as its row's anchor would be.
      anchor: 'nim:5|grumpy',
      promptText: expect.stringContaining('There are 5 stones left.'),
      responseText: '<action>1</action>',
      promptTokens: [],
      responseTokens: [],
      logprobs: [],
    });
    // It is not a row: no reward, no validity, and the partial record (what could be trained on or
    // counted) holds the slot's two stepped turns only.
    const mine = failure.partial.rows.filter((r) => r.slot === 'g0/s0');
    expect(mine.map((r) => `${r.attempt}/${r.turn}`)).toEqual(['0/0', '0/1']);
    expect(events.at(-1)).toMatchObject({ type: 'rollout-error', error: { unsteppedTurn: unstepped } });
    // What the opponent threw stays reachable through the causes.
    expect((failure.cause as Error).cause).toBeInstanceOf(Interrupted);
  });

  it('reports a throwing env step as ENV_FAILURE and a missing outcome too', async () => {
    const broken = {
      ...env,
      createEpisode: (task: Parameters<typeof env.createEpisode>[0]) => {
        const inner = env.createEpisode(task);
        return Object.assign(Object.create(inner) as typeof inner, {
          step: (a: Parameters<typeof inner.step>[0]) => {
            if (inner.turn === 1) throw new Error('boom');
            return inner.step(a);
          },
        });
      },
    };
    const failure = (await run(takeOne(), { env: broken }).catch((e: unknown) => e)) as RolloutFailureError;
    expect(failure.code).toBe('ENV_FAILURE');
    expect(failure.context).toMatchObject({ slot: 'g0/s0', attempt: 0, turn: 1 });
    expect(failure.partial.rows).toHaveLength(8);
    expect(failure.unsteppedTurn).toMatchObject({ slot: 'g0/s0', attempt: 0, turn: 1, phase: 'play' });
  });

  it('rejects responses whose log-probs do not match their tokens', async () => {
    const policy: PolicyV1 = {
      specificationVersion: 'v1',
      id: 'sloppy',
      async generate(requests) {
        return requests.map(() => ({
          text: '<action>1</action>',
          promptTokens: [],
          tokens: [1, 2],
          logprobs: [-1],
          finishReason: 'stop' as const,
        }));
      },
    };
    const failure = (await runMetaEpisodes({ ...base, policy, memory: simpleMemory() }).catch(
      (e: unknown) => e,
    )) as RolloutFailureError;
    expect(failure.code).toBe('POLICY_FAILURE');
    expect(failure.context).toMatchObject({ slot: 'g0/s0', attempt: 0, turn: 0 });
  });

  it('cancels between turns through the AbortSignal', async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const iterator = iterateMetaEpisodes({
      ...base,
      policy: takeOne(),
      memory: simpleMemory(),
      signal: controller.signal,
    });
    await expect(
      (async () => {
        for await (const event of iterator) {
          seen.push(event.type);
          if (event.type === 'turn-end') controller.abort();
        }
      })(),
    ).rejects.toBeInstanceOf(AbortedError);
    expect(seen.filter((t) => t === 'turn-end')).toHaveLength(1);
  });
});

describe('policy facts', () => {
  it('hand scripted policies the observation on play turns and the finished attempt on reflect turns', async () => {
    const seen: PolicyRequestV1[] = [];
    const policy = scriptedPolicy((r) => {
      seen.push(r);
      return r.phase === 'reflect' ? '<remark>note</remark>' : '<action>1</action>';
    });
    const result = await runMetaEpisodes({
      ...base,
      groups: 1,
      groupSize: 1,
      earlyStop: false,
      policy,
      memory: simpleMemory(),
    });
    const play = seen.filter((r) => r.phase === 'play');
    const reflect = seen.filter((r) => r.phase === 'reflect');
    expect(play[0]?.facts?.observation?.info).toEqual({ stones: expect.any(Number) });
    expect(play[0]?.facts?.slot).toBe(result.slots[0]?.slot);
    expect(reflect).toHaveLength(2);
    expect(reflect[0]?.facts?.attempt).toBe(1);
    expect(reflect[0]?.facts?.finished?.outcome).toEqual(result.slots[0]?.attempts[0]?.outcome);
    const attempt0Rows = result.rows.filter((r) => r.attempt === 0 && r.phase === 'play');
    expect(reflect[0]?.facts?.finished?.events).toHaveLength(attempt0Rows.length);
  });
});
