import { describe, expect, it } from 'vitest';
import { createRng } from '../rng';
import { createNimEnv, firstLegalOpponent, nimGame, scriptedPolicy } from '../testing';
import { finishAttempt } from './finish-attempt';
import { type RunMetaEpisodesOptions, resolveRunOptions } from './options';
import type { RolloutState } from './rollout-state';
import { simpleMemory } from './simple-memory.test-helper';
import { startGroups } from './start-slots';
import { planTasks, seatsForGroups } from './tasks';

function rollout(overrides: Partial<RunMetaEpisodesOptions> = {}): RolloutState<unknown, unknown> {
  const options = {
    env: createNimEnv(),
    policy: scriptedPolicy(() => '<action>1</action>'),
    memory: simpleMemory(),
    opponents: ['a', 'b', 'c'],
    makeOpponent: (id: string) => firstLegalOpponent(nimGame, id),
    groups: 2,
    groupSize: 2,
    attempts: 2,
    seed: 3,
    ...overrides,
  } as RunMetaEpisodesOptions;
  const resolved = resolveRunOptions(options);
  const root = createRng(options.seed);
  const iterationRng = root.split(`iteration-${resolved.iteration}`);
  const { groups, slots } = startGroups(
    options,
    resolved,
    planTasks(options, resolved, root, iterationRng),
    iterationRng,
  );
  return { options, resolved, groups, slots, pending: [], tick: 0, policyCalls: 0 };
}

const win = { success: true, draw: false, truncated: false, label: 'win' };
const loss = { success: false, draw: false, truncated: false, label: 'loss' };

describe('runner phases', () => {
  it('plans opponents in turn by global group index, one per slot', () => {
    const run = rollout({ groupOffset: 2 });
    expect(run.groups.map((g) => [g.group, g.task.opponentId, g.slots])).toEqual([
      ['g2', 'c', ['g2/s0', 'g2/s1']],
      ['g3', 'a', ['g3/s0', 'g3/s1']],
    ]);
    expect(run.slots.map((s) => [s.id, s.opponentId, s.phase, s.attempt])).toEqual([
      ['g2/s0', 'c', 'play', 0],
      ['g2/s1', 'c', 'play', 0],
      ['g3/s0', 'a', 'play', 0],
      ['g3/s1', 'a', 'play', 0],
    ]);
  });

  it('gives a group the same mixed seat whatever groups run with it', () => {
    const all = seatsForGroups({ mixed: 0.5 }, 0, 8, createRng('s'));
    expect(seatsForGroups({ mixed: 0.5 }, 3, 4, createRng('s'))).toEqual(all.slice(3, 7));
    expect(all.filter((s) => s === 'second')).toHaveLength(4);
  });

  it('finishes an attempt: a reflect turn next, the next attempt, or the end of the slot', () => {
    const reflecting = rollout();
    const [slot] = reflecting.slots;
    if (!slot) throw new Error('no slot');
    finishAttempt(reflecting, slot, loss);
    expect(slot.phase).toBe('reflect');
    expect(reflecting.pending).toEqual([]);

    const plain = rollout({ memory: simpleMemory({ reflects: false }) });
    const [first] = plain.slots;
    if (!first) throw new Error('no slot');
    finishAttempt(plain, first, loss);
    expect([first.phase, first.attempt, first.steps]).toEqual(['play', 1, []]);
    finishAttempt(plain, first, win);
    expect(first.phase).toBe('done');
    expect(plain.pending.map((e) => e.type)).toEqual(['attempt-end', 'attempt-end', 'slot-end']);
  });
});
