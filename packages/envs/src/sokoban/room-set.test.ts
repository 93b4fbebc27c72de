import { createRng } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { createSokoban } from './env';
import { parseSokoban } from './room';
import { generateSokobanRooms } from './room-set';
import { solveSokoban } from './solver';

describe('generateSokobanRooms', () => {
  it('numbers rooms from the seed, with BFS-optimal solutions, each the room of the task with its seed', () => {
    const rooms = generateSokobanRooms({ boxes: 2, count: 3, seed: 10, size: 6, rngOf: createRng });
    expect(rooms.map((r) => r.seed)).toEqual([10, 11, 12]);
    for (const r of rooms) {
      expect(r.room).toHaveLength(6);
      expect(r.boxes).toBe(2);
      expect(r.solution).toHaveLength(r.optimalLength);
      expect(solveSokoban(parseSokoban(r.room)).solution?.length).toBe(r.optimalLength);
      expect(r.optimalLength).toBeGreaterThanOrEqual(5);
      expect(r.optimalLength).toBeLessThanOrEqual(21);
      const episode = createSokoban().createEpisode({
        seed: r.seed,
        seat: 'first',
        style: 'verbose',
        rng: createRng(r.seed),
      });
      expect(episode.reset(0).info.room).toEqual(r.room);
    }
  });
});
