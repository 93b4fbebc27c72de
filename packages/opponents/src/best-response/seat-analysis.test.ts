import { KUHN_INITIAL_STATE, kuhnGame } from '@mage-rl/envs/kuhn-poker';
import { describe, expect, it } from 'vitest';
import { type KUHN_ARCHETYPES, kuhnArchetypePolicy } from '../kuhn/archetypes';
import { POPULATION_PRESETS } from '../population/presets';
import { bestResponse } from './best-response';
import { adaptationCeilingTable, seatBestResponse } from './seat-analysis';

const kuhn = { game: kuhnGame, root: KUHN_INITIAL_STATE };
const archetype = (id: (typeof KUHN_ARCHETYPES)[number]) => ({ id, policy: kuhnArchetypePolicy(id) });

describe('seatBestResponse', () => {
  it('gives each seat its best response and averages them for mixed seats, with both seats’ strategies', () => {
    const strategy = kuhnArchetypePolicy('aggressive');
    const br = (player: 0 | 1) => bestResponse({ ...kuhn, strategy, player });
    const mixed = seatBestResponse({ ...kuhn, strategy, seat: 'mixed' });
    expect(mixed.valueBySeat).toEqual({ '0': br(0).value, '1': br(1).value });
    expect(mixed.value).toBeCloseTo((br(0).value + br(1).value) / 2, 12);
    expect(mixed.strategy).toEqual({ ...br(0).strategy, ...br(1).strategy });
    const seat1 = seatBestResponse({ ...kuhn, strategy, seat: '1' });
    expect(seat1.value).toBe(br(1).value);
    expect(seat1.strategy).toEqual(br(1).strategy);
  });
});

describe('adaptationCeilingTable', () => {
  it('a single known opponent: every attempt of both planners earns the best response', () => {
    const aggressive = archetype('aggressive');
    const table = adaptationCeilingTable({
      ...kuhn,
      seat: 'mixed',
      attempts: 2,
      population: [{ ...aggressive, weight: 1 }],
      evaluate: [aggressive],
    });
    const [row] = table.opponents;
    expect(row!.bestResponse).toBeCloseTo(1 / 3, 9);
    for (const v of [...row!.perAttempt.bayes, ...row!.perAttempt.myopic]) expect(v).toBeCloseTo(1 / 3, 9);
    expect(table.value.bayes).toBeCloseTo(1 / 3, 9);
  });

  it('an opponent drawn from the balanced population is exploited only after a hand; bayes plans at least as well', () => {
    const population = POPULATION_PRESETS['kuhn-poker'].balanced!.map((e) => ({
      ...archetype(e.id as (typeof KUHN_ARCHETYPES)[number]),
      weight: e.weight,
    }));
    const table = adaptationCeilingTable({
      ...kuhn,
      seat: 'mixed',
      attempts: 3,
      population,
      evaluate: [archetype('aggressive')],
    });
    const bayes = table.opponents[0]!.perAttempt.bayes;
    expect(bayes).toHaveLength(3);
    expect(bayes[0]).toBeLessThan(0);
    expect(bayes[2]).toBeCloseTo(1 / 3, 9);
    expect(table.value.bayes).toBeGreaterThanOrEqual(table.value.myopic - 1e-12);
  });
});
