/** The first phase of a run: which opponent each slot faces and which seat each group takes. */

import type { Seat } from '@mage-rl/spec';
import { assignOpponents } from '@mage-rl/spec';
import type { Rng } from '../rng';
import type { ResolvedRunOptions, RunMetaEpisodesOptions, SeatOption } from './options';

export interface TaskPlan {
  /** Per group, the opponent id of each of its slots (`null` for envs without an opponent). */
  readonly opponentIds: readonly (readonly (string | null)[])[];
  /** Per group, the agent's seat. */
  readonly seats: readonly Seat[];
}

/**
 * Opponents and seats of the run's groups. Opponents come from the population (`root/population`
 * stream) or from the `opponents` list in turn by global group index; seats from the iteration's
 * `…/seats` stream.
 */
export function planTasks<S, A>(
  options: RunMetaEpisodesOptions<S, A>,
  resolved: ResolvedRunOptions,
  root: Rng,
  iterationRng: Rng,
): TaskPlan {
  return {
    opponentIds: opponentIdsForGroups(options, resolved, root),
    seats: seatsForGroups(
      options.seats ?? 'first',
      resolved.groupOffset,
      options.groups,
      iterationRng.split('seats'),
    ),
  };
}

function opponentIdsForGroups<S, A>(
  options: RunMetaEpisodesOptions<S, A>,
  resolved: ResolvedRunOptions,
  root: Rng,
): (string | null)[][] {
  const { groups, groupSize, population, opponents = [] } = options;
  if (!options.env.needsOpponent) {
    return Array.from({ length: groups }, () => Array.from({ length: groupSize }, () => null));
  }
  if (population) {
    return assignOpponents(population, {
      groups,
      groupSize,
      iteration: resolved.iteration,
      rng: root.split('population'),
    });
  }
  return Array.from({ length: groups }, (_, g) => {
    const id = opponents[(resolved.groupOffset + g) % opponents.length] ?? null;
    return Array.from({ length: groupSize }, () => id);
  });
}

/**
 * Seats of the groups with global indices `offset … offset + groups − 1`. Under `{ mixed: f }` the
 * groups are visited from global index 0 on, one uniform draw `u_i` of `rng` per group: group i plays
 * second iff `f × (i + 1) − (groups before i that play second) > u_i` (error diffusion with a random
 * threshold). The surplus `f × N − seconds among the first N` stays in (−1, 1), so every prefix — one
 * run, or all the waves of an evaluation — has within one group of `f × N` second seats (exactly
 * `f × N` when that is an integer), and a group's seat depends on its global index only, never on how
 * many groups run together. The random threshold keeps the pattern from locking onto the opponent cycle
 * (a fixed threshold would give `f = 0.5` the seats first, second, first, … in step with 2 opponents).
 * Cost O(offset + groups).
 */
export function seatsForGroups(seats: SeatOption, offset: number, groups: number, rng: Rng): Seat[] {
  if (typeof seats === 'string') return Array.from({ length: groups }, () => seats);
  const out: Seat[] = [];
  let seconds = 0;
  for (let i = 0; i < offset + groups; i++) {
    const second = seats.mixed * (i + 1) - seconds > rng.next();
    if (second) seconds++;
    if (i >= offset) out.push(second ? 'second' : 'first');
  }
  return out;
}
