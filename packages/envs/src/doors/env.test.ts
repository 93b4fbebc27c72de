import { ConfigError, createRng } from '@mage-rl/core';
import { describeEnvConformance } from '@mage-rl/core/testing/vitest';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDoors, type DoorsOptions } from './env';
import { doorsEvent, parseDoorsAction, parseDoorsEvent } from './text';

describeEnvConformance('doors 3', () => createDoors());
describeEnvConformance('doors 9', () => createDoors({ doors: 9 }));

function episode(seed: number, options: DoorsOptions = {}, style: 'verbose' | 'compact' = 'compact') {
  return createDoors(options).createEpisode({ seed, seat: 'first', style, rng: createRng(`doors/${seed}`) });
}

/** The prize door of a task, found by opening every door in turn (each in its own attempt). */
function prizeDoor(seed: number, doors = 3): number {
  const ep = episode(seed, { doors });
  for (let door = 1; door <= doors; door++) {
    ep.reset(door - 1);
    if (ep.step({ valid: true, action: door, text: '' }).outcome?.success) return door;
  }
  throw new Error('no prize');
}

describe('doors rules', () => {
  it('puts the prize behind the same door in every attempt; seeds spread over the doors', () => {
    const doors = new Set<number>();
    for (let seed = 0; seed < 40; seed++) {
      expect(prizeDoor(seed)).toBe(prizeDoor(seed));
      doors.add(prizeDoor(seed));
    }
    expect([...doors].sort()).toEqual([1, 2, 3]);
  });

  it('opening the prize door scores 10 (win), an empty door 0 (loss); one opening per attempt', () => {
    const prize = prizeDoor(3);
    const empty = prize === 1 ? 2 : 1;
    const ep = episode(3);
    ep.reset(0);
    const miss = ep.step(ep.parse(`<action> ${empty} </action>`));
    expect(miss).toMatchObject({ reward: 0, valid: true, done: true, event: `door ${empty} empty` });
    expect(miss.outcome).toMatchObject({ success: false, label: 'loss' });
    ep.reset(1);
    const hit = ep.step(ep.parse(`<action>${prize}</action>`));
    expect(hit).toMatchObject({ reward: 10, done: true, event: `door ${prize} prize` });
    expect(hit.outcome).toMatchObject({ success: true, label: 'win' });
  });

  it('every attempt starts from the same observation; anchors never show the prize door', () => {
    const anchors = new Set<string>();
    for (let seed = 0; seed < 30; seed++) {
      const ep = episode(seed);
      const first = ep.reset(0);
      expect(first).toEqual({
        text: 'doors 3',
        anchor: 'doors:3:-',
        info: { doors: 3, opened: 0, hint: '' },
      });
      ep.step(ep.parse('<action> 1 </action>'));
      expect(ep.reset(1)).toEqual(first);
      anchors.add(first.anchor);
    }
    expect(anchors.size).toBe(1);
  });

  it('an invalid answer ends the attempt with nothing opened', () => {
    const ep = episode(1);
    ep.reset(0);
    expect(ep.parse('<action>4</action>').valid).toBe(false);
    expect(ep.step(ep.parse('open 1'))).toMatchObject({
      valid: false,
      event: 'invalid',
      done: true,
      reward: 0,
    });
  });

  it('rejects bad options with a ConfigError naming the option', () => {
    expect(() => createDoors({ doors: 1 })).toThrow(ConfigError);
    expect(() => createDoors({ doors: 10 })).toThrow(/doors\.doors/);
    expect(() => createDoors({ maxTurns: 2 } as never)).toThrow(/maxTurns/);
  });
});

describe('doors text', () => {
  it('compact and verbose faces', () => {
    expect(episode(1).rules()).toBe(
      'doors . a prize is behind one of 3 doors . open one : <action> door </action>',
    );
    expect(episode(1, {}, 'verbose').rules()).toContain('same door in every attempt');
    expect(episode(1, { doors: 4 }, 'verbose').initialText()).toBe(
      'There are 4 closed doors, numbered 1 to 4.',
    );
    expect(doorsEvent(2, false, 'verbose')).toBe('You opened door 2: empty.');
  });

  it('parses door numbers, never throws, accepts only existing doors, and reads events back', () => {
    expect(parseDoorsAction('<action>door 2</action>', 3)).toMatchObject({ valid: true, action: 2 });
    fc.assert(
      fc.property(fc.string(), (text) => {
        const parsed = parseDoorsAction(text, 3);
        if (parsed.valid) expect([1, 2, 3]).toContain(parsed.action);
      }),
    );
    for (const style of ['compact', 'verbose'] as const) {
      expect(parseDoorsEvent(doorsEvent(3, true, style))).toEqual({ door: 3, prize: true });
      expect(parseDoorsEvent(doorsEvent(1, false, style))).toEqual({ door: 1, prize: false });
    }
    expect(parseDoorsEvent('invalid')).toBeNull();
  });
});
