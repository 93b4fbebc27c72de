/**
 * The Doors warm-start teacher. Note-blind (the default) it opens a uniformly random door every attempt
 * and never reads its notes. Reading its notes (a share of meta-episodes, `adaptive`) it is the Bayes
 * reader: the prize door once a note records it, else a uniformly random door its notes do not record as
 * empty. See architecture/recipes.md.
 */

import type { FinishedAttemptFactsV1, PolicyV1, Rng } from '@mage-rl/core';
import { type DoorsEnv, parseDoorsEvent } from '@mage-rl/envs/doors';
import { envTeacher, type TeacherOptions } from './teacher-policy';

/** The reading teacher's door: a recorded prize door, else a random door not recorded empty. */
export function doorsReaderDoor(doors: number, earlier: readonly FinishedAttemptFactsV1[], rng: Rng): number {
  const opened = earlier.flatMap((a) => a.events.flatMap((e) => parseDoorsEvent(e) ?? []));
  const prize = opened.find((o) => o.prize);
  if (prize) return prize.door;
  const empty = new Set(opened.map((o) => o.door));
  const untried = Array.from({ length: doors }, (_, i) => i + 1).filter((d) => !empty.has(d));
  return untried.length > 0 ? rng.pick(untried) : 1 + rng.int(doors);
}

export function doorsTeacher(env: DoorsEnv, options: TeacherOptions = {}): PolicyV1 {
  return envTeacher(env, 'teacher-doors', options, (observation, rng, notes) => {
    const value = observation.info.doors;
    const doors = typeof value === 'number' ? value : 3;
    return notes.adaptive ? doorsReaderDoor(doors, notes.earlier, rng) : 1 + rng.int(doors);
  });
}
