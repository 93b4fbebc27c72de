import { createRng } from '@mage-rl/core';
import { createSokoban, parseSokoban, solveSokoban } from '@mage-rl/envs/sokoban';
import { describe, expect, it } from 'vitest';
import { runCli } from '../program/program';
import { capture } from '../testing/cli.test-helper';
import type { GeneratedRoomJson } from './sokoban';

describe('mage sokoban generate', () => {
  it('--json prints rooms with optimal solution lengths', async () => {
    const c = capture();
    const code = await runCli(
      ['sokoban', 'generate', '--boxes', '2', '--count', '3', '--seed', '10', '--json'],
      c.io,
    );
    expect(code).toBe(0);
    const rooms = JSON.parse(c.out()) as GeneratedRoomJson[];
    expect(rooms.map((r) => r.seed)).toEqual([10, 11, 12]);
    for (const r of rooms) {
      expect(Object.keys(r).sort()).toEqual(['boxes', 'optimalLength', 'room', 'seed', 'solution']);
      expect(r.room).toHaveLength(6);
      expect(r.boxes).toBe(2);
      expect(r.solution).toHaveLength(r.optimalLength);
      expect(solveSokoban(parseSokoban(r.room)).solution?.length).toBe(r.optimalLength);
      expect(r.optimalLength).toBeGreaterThanOrEqual(5);
      expect(r.optimalLength).toBeLessThanOrEqual(21);
    }
    // the room of seed S is the room of a sokoban episode whose task rng is createRng(S)
    const ep = createSokoban().createEpisode({
      seed: 10,
      seat: 'first',
      style: 'verbose',
      rng: createRng(10),
    });
    expect(ep.reset(0).info.room).toEqual(rooms[0]?.room);
  });

  it('prints a readable listing and honours --size', async () => {
    const c = capture();
    expect(await runCli(['sokoban', 'generate', '--boxes', '1', '--count', '2', '--size', '7'], c.io)).toBe(
      0,
    );
    const text = c.out();
    expect(text).toMatch(/^seed 1: 1 box, optimal \d+ moves\n#######\n/);
    expect(text).toMatch(/seed\s+boxes\s+optimal moves/);
  });

  it('rejects bad numbers with a ConfigError message', async () => {
    const c = capture();
    expect(await runCli(['sokoban', 'generate', '--boxes', 'two'], c.io)).toBe(1);
    expect(c.err()).toMatch(/--boxes must be an integer from 1 to 6, got 'two'.*INVALID_CONFIG/);
  });
});
