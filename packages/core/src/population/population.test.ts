import { assignOpponents, ConfigError, createPopulation, fixedPopulation } from '@mage-rl/spec';
import { describe, expect, it } from 'vitest';
import { createRng } from '../rng';

const entries = [
  { id: 'conservative', weight: 0.3 },
  { id: 'aggressive', weight: 0.3 },
  { id: 'intermediate', weight: 0.4 },
];

describe('populations', () => {
  it('partition gives contiguous blocks by weight, fixed across iterations', () => {
    const pop = createPopulation('kuhn', entries, { mode: 'partition' });
    const rng = createRng(1);
    const a = assignOpponents(pop, { groups: 10, groupSize: 2, iteration: 0, rng });
    const b = assignOpponents(pop, { groups: 10, groupSize: 2, iteration: 5, rng });
    expect(a.map((g) => g[0])).toEqual([
      ...Array(3).fill('conservative'),
      ...Array(3).fill('aggressive'),
      ...Array(4).fill('intermediate'),
    ]);
    expect(b).toEqual(a);
  });

  it('sampled mode is seeded per iteration and every slot of a group shares the opponent', () => {
    const pop = createPopulation('kuhn', entries);
    const a = assignOpponents(pop, { groups: 64, groupSize: 4, iteration: 3, rng: createRng(9) });
    const again = assignOpponents(pop, { groups: 64, groupSize: 4, iteration: 3, rng: createRng(9) });
    const next = assignOpponents(pop, { groups: 64, groupSize: 4, iteration: 4, rng: createRng(9) });
    expect(again).toEqual(a);
    expect(next).not.toEqual(a);
    for (const g of a) expect(new Set(g).size).toBe(1);
    expect(new Set(a.map((g) => g[0])).size).toBe(3);
  });

  it('mixed grouping gives slots their own opponents', () => {
    const pop = createPopulation('kuhn', entries, { grouping: 'mixed' });
    const a = assignOpponents(pop, { groups: 8, groupSize: 8, iteration: 0, rng: createRng(2) });
    expect(a.some((g) => new Set(g).size > 1)).toBe(true);
  });

  it('fixed population and validation', () => {
    const a = assignOpponents(fixedPopulation('mcts-100'), {
      groups: 2,
      groupSize: 2,
      iteration: 0,
      rng: createRng(0),
    });
    expect(a).toEqual([
      ['mcts-100', 'mcts-100'],
      ['mcts-100', 'mcts-100'],
    ]);
    expect(() => createPopulation('bad', [{ id: 'x', weight: -1 }])).toThrow(ConfigError);
    expect(() => createPopulation('bad', [])).toThrow(/no opponents/);
  });
});
