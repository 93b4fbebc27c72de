import { ConfigError, createRng } from '@mage-rl/core';
import { describeEnvConformance } from '@mage-rl/core/testing/vitest';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTreasure, type TreasureOptions } from './env';
import { treasureHint } from './game';
import { parseTreasureAction, parseTreasureEvent, treasureEvent } from './text';

describeEnvConformance('treasure 3x3', () => createTreasure());
describeEnvConformance('treasure 5x4 three probes', () =>
  createTreasure({ width: 5, height: 4, maxTurns: 3 }),
);

function episode(seed: number, options: TreasureOptions = {}, style: 'verbose' | 'compact' = 'compact') {
  return createTreasure(options).createEpisode({
    seed,
    seat: 'first',
    style,
    rng: createRng(`treasure/${seed}`),
  });
}

/** The hidden cell of a task, found by probing every cell in turn (each in its own attempt). */
function hiddenCell(seed: number, options: TreasureOptions = {}): number {
  const ep = episode(seed, options);
  const width = options.width ?? 3;
  const cells = width * (options.height ?? 3);
  for (let cell = 0; cell < cells; cell++) {
    ep.reset(cell);
    const step = ep.step({ valid: true, action: cell, text: '' });
    if (step.outcome?.success) return cell;
  }
  throw new Error('no cell found');
}

describe('treasure rules', () => {
  it('hides the same cell in every attempt; seeds spread over the grid', () => {
    const cells = new Set<number>();
    for (let seed = 0; seed < 60; seed++) {
      const target = hiddenCell(seed);
      expect(hiddenCell(seed)).toBe(target);
      cells.add(target);
    }
    expect(cells.size).toBe(9);
  });

  it('answers found (reward 10, win) or the direction of the cell from the probe (reward 0, loss)', () => {
    const seed = [...Array(40).keys()].find((s) => hiddenCell(s) === 2) as number; // row 1 col 3
    const ep = episode(seed);
    ep.reset(0);
    const miss = ep.step(ep.parse('<action> 2 1 </action>'));
    expect(miss).toMatchObject({ reward: 0, valid: true, done: true, event: 'probe 2 1 north east' });
    expect(miss.outcome).toMatchObject({ success: false, label: 'loss' });
    ep.reset(1);
    expect(ep.step(ep.parse('<action>1 1</action>')).event).toBe('probe 1 1 east');
    ep.reset(2);
    expect(ep.step(ep.parse('<action>3 3</action>')).event).toBe('probe 3 3 north');
    ep.reset(3);
    const hit = ep.step(ep.parse('<action>1 3</action>'));
    expect(hit).toMatchObject({ reward: 10, valid: true, done: true, event: 'probe 1 3 found' });
    expect(hit.outcome).toMatchObject({ success: true, label: 'win' });
  });

  it('restarts every attempt from the same observation: nothing of earlier attempts shows', () => {
    const ep = episode(5, { maxTurns: 2 });
    const first = ep.reset(0);
    expect(first.text).toBe('grid 3 by 3');
    expect(ep.initialText()).toBe('grid 3 by 3');
    const step = ep.step(ep.parse('<action> 2 2 </action>'));
    if (!step.done) expect(step.observation.info.probes).toHaveLength(1);
    const again = ep.reset(1);
    expect(again).toEqual(first);
    expect(again.info).toEqual({ width: 3, height: 3, probes: [], hint: '' });
  });

  it('anchors never contain the hidden cell: the same probes and answers give the same anchor', () => {
    const anchors = new Map<string, Set<number>>();
    for (let seed = 0; seed < 80; seed++) {
      const ep = episode(seed);
      const target = hiddenCell(seed);
      const start = ep.reset(0);
      anchors.set(start.anchor, new Set([...(anchors.get(start.anchor) ?? []), target]));
      const step = ep.step(ep.parse('<action> 1 1 </action>'));
      anchors.set(
        step.observation.anchor,
        new Set([...(anchors.get(step.observation.anchor) ?? []), target]),
      );
    }
    // The start is one anchor for all 9 cells; after probing 1 1 the answer (found, east, south, south
    // east) splits them into 4 anchors.
    expect(anchors.size).toBe(5);
    expect(anchors.get('treasure:3x3:')?.size).toBe(9);
  });

  it('with several probes the observation shows the last probe and its answer; the turn limit ends the attempt', () => {
    const seed = [...Array(40).keys()].find((s) => hiddenCell(s, { maxTurns: 2 }) === 8) as number;
    const ep = episode(seed, { maxTurns: 2 }, 'verbose');
    ep.reset(0);
    const step = ep.step(ep.parse('<action>1 1</action>'));
    expect(step.done).toBe(false);
    expect(step.event).toBe('You probed row 1, column 1: the treasure is south east of it.');
    expect(step.observation.text).toContain('Last probe: You probed row 1, column 1');
    expect(step.observation.info.hint).toBe('south east');
    const last = ep.step(ep.parse('<action>2 2</action>'));
    expect(last).toMatchObject({ done: true, reward: 0, outcome: { label: 'loss' } });
  });

  it('an unparsable or off-grid answer is an invalid turn that ends a one-probe attempt', () => {
    const ep = episode(1);
    ep.reset(0);
    const parsed = ep.parse('<action>4 1</action>');
    expect(parsed.valid).toBe(false);
    expect(ep.step(parsed)).toMatchObject({ valid: false, reward: 0, event: 'invalid', done: true });
  });

  it('rejects bad options with a ConfigError naming the option', () => {
    expect(() => createTreasure({ width: 1 })).toThrow(ConfigError);
    expect(() => createTreasure({ height: 10 })).toThrow(/treasure\.height/);
    expect(() => createTreasure({ maxTurns: 0 })).toThrow(/maxTurns/);
    expect(() => createTreasure({ size: 3 } as never)).toThrow(/Unknown option/);
  });
});

describe('treasure text', () => {
  it('verbose and compact rules state the grid, the probes and the action format', () => {
    const compact = episode(1, { width: 4, height: 2 }).rules();
    expect(compact).toBe(
      'treasure . find the hidden cell of a 2 by 4 grid . row 1 is north . col 1 is west . probes 1 . answer <action> row col </action>',
    );
    const verbose = episode(1, {}, 'verbose').rules();
    expect(verbose).toContain('<action>2 3</action>');
    expect(verbose).toContain('same cell in every attempt');
    expect(episode(1, {}, 'verbose').initialText()).toBe(
      'The grid has 3 rows and 3 columns. Nothing probed yet in this attempt.',
    );
  });

  it('formats and parses cells both ways, with spaces, commas or brackets', () => {
    const env = createTreasure({ width: 4, height: 3 });
    for (let cell = 0; cell < 12; cell++) {
      for (const style of ['compact', 'verbose'] as const) {
        expect(parseTreasureAction(env.formatAction(cell, style), 4, 3)).toMatchObject({
          valid: true,
          action: cell,
        });
      }
    }
    expect(parseTreasureAction('<action>(2, 3)</action>', 4, 3)).toMatchObject({ action: 6 });
    expect(parseTreasureAction('<action>2,3</action>', 4, 3)).toMatchObject({ action: 6 });
    expect(parseTreasureAction('<action>2 5</action>', 4, 3).valid).toBe(false);
    expect(parseTreasureAction('<action>north</action>', 4, 3).valid).toBe(false);
  });

  it('the parser never throws and accepts only on-grid cells', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const parsed = parseTreasureAction(text, 3, 3);
        if (parsed.valid) expect(parsed.action).toBeGreaterThanOrEqual(0);
        if (parsed.valid) expect(parsed.action).toBeLessThan(9);
      }),
    );
  });

  it('event lines read back to the probe and its answer in both styles', () => {
    for (let target = 0; target < 12; target++) {
      for (let cell = 0; cell < 12; cell++) {
        const hint = treasureHint(4, target, cell);
        for (const style of ['compact', 'verbose'] as const) {
          const facts = parseTreasureEvent(treasureEvent(cell, 4, hint, style));
          expect(facts).toEqual({ row: Math.floor(cell / 4) + 1, col: (cell % 4) + 1, hint });
        }
      }
    }
    expect(parseTreasureEvent('invalid')).toBeNull();
  });
});
