/**
 * Populations: weighted lists of opponent ids, and how groups get their opponents (sampled per group,
 * partitioned into contiguous blocks, or mixed within a group).
 * Pure and seeded; opponent *construction* lives with the opponents.
 */

import { at } from '../arrays/at';
import { ConfigError } from '../errors/mage-error';
import type { Rng } from '../rng/rng';

export interface PopulationEntry {
  readonly id: string;
  readonly weight: number;
}

export type PopulationMode =
  /** Opponents drawn per group every iteration, proportional to weight (seeded). */
  | 'sampled'
  /** Contiguous blocks of groups by weight, fixed for the run (the reference code's behaviour). */
  | 'partition';

export interface PopulationV1 {
  readonly name: string;
  readonly entries: readonly PopulationEntry[];
  readonly mode: PopulationMode;
  /**
   * `per-opponent` (default): all slots of a group face the group's opponent. `mixed`: every slot draws
   * its own opponent (the "non-stationary grouping" ablation).
   */
  readonly grouping: 'per-opponent' | 'mixed';
}

export function createPopulation(
  name: string,
  entries: readonly PopulationEntry[],
  options: { mode?: PopulationMode; grouping?: 'per-opponent' | 'mixed' } = {},
): PopulationV1 {
  if (entries.length === 0) throw new ConfigError(`Population '${name}' has no opponents.`);
  entries.forEach((e, i) => {
    if (!(e.weight > 0) || !Number.isFinite(e.weight)) {
      throw new ConfigError(
        `Population '${name}': entries[${i}].weight must be a positive number, got ${e.weight}.`,
        {
          path: `entries.${i}.weight`,
        },
      );
    }
  });
  return { name, entries, mode: options.mode ?? 'sampled', grouping: options.grouping ?? 'per-opponent' };
}

/** One fixed opponent (the "fixed opponent" ablation). */
export function fixedPopulation(id: string): PopulationV1 {
  return createPopulation(`fixed:${id}`, [{ id, weight: 1 }]);
}

/**
 * Opponent id for every slot: `result[g][s]` is the opponent of slot `s` of group `g` in `iteration`.
 * `rng` should be the run's population stream; the draw for an iteration does not depend on earlier ones.
 */
export function assignOpponents(
  population: PopulationV1,
  args: { groups: number; groupSize: number; iteration: number; rng: Rng },
): string[][] {
  const { groups, groupSize, iteration, rng } = args;
  const weights = population.entries.map((e) => e.weight);
  const ids = population.entries.map((e) => e.id);
  const iterRng = rng.split(`iteration-${iteration}`);
  const byGroup: string[] =
    population.mode === 'partition'
      ? partition(population.entries, groups)
      : Array.from({ length: groups }, (_, g) => at(ids, iterRng.split(`group-${g}`).weighted(weights)));
  return byGroup.map((groupOpponent, g) =>
    Array.from({ length: groupSize }, (_, s) =>
      population.grouping === 'mixed'
        ? at(ids, iterRng.split(`group-${g}`).split(`slot-${s}`).weighted(weights))
        : groupOpponent,
    ),
  );
}

/** Largest-remainder apportionment of `groups` into contiguous blocks, one per entry in entry order. */
function partition(entries: PopulationV1['entries'], groups: number): string[] {
  const total = entries.reduce((a, e) => a + e.weight, 0);
  const blocks = entries.map(({ id, weight }, i) => {
    const exact = (weight / total) * groups;
    return { id, i, count: Math.floor(exact), remainder: exact - Math.floor(exact) };
  });
  let left = groups - blocks.reduce((a, b) => a + b.count, 0);
  const order = [...blocks].sort((a, b) => b.remainder - a.remainder || a.i - b.i);
  for (let k = 0; left > 0; k = (k + 1) % order.length, left--) at(order, k).count++;
  return blocks.flatMap((b) => Array.from({ length: b.count }, () => b.id));
}
