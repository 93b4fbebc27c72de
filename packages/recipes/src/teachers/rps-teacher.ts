/**
 * The Rock-Paper-Scissors warm-start teacher, the players of opponents' `rpsCeiling` over the training
 * population (`balanced`). Note-blind (the default) it is the memoryless best response: within the attempt
 * it keeps the bots whose rule explains the rounds so far and throws what wins most against them, never
 * reading its notes. Among tied throws (its first throw always is one) it draws rock, paper and scissors
 * with weights 4 : 2 : 1. Not uniformly: trained on uniform draws, mage-tiny's tied embeddings of the three
 * words collapsed into one vector (cosine 1.00), and it could neither read a throw nor copy one into a note.
 * Not the first of them always either: a warm start that always throws the same has no entropy, every
 * meta-episode of a group plays alike and RL gets no contrast (docs/results/rps-exploit). Reading its
 * notes (a share of meta-episodes, `adaptive`) it is the myopic reader: the rounds its notes record (the
 * env's own lines, `parseRpsEvent`) narrow the bots first; on this population the Bayes reader plays the
 * same. A round no bot explains leaves the belief as it was, as in the ceiling. See architecture/recipes.md.
 */

import { type FinishedAttemptFactsV1, InvalidArgumentError, type PolicyV1 } from '@mage-rl/core';
import { parseRpsEvent, RPS_THROWS, type RpsEnv, type RpsThrow } from '@mage-rl/envs/rps';
import { POPULATION_PRESETS, RPS_BOTS, RpsPlanner } from '@mage-rl/opponents';
import { envTeacher, infoStrings, type TeacherOptions } from './teacher-policy';

type Round = readonly [mine: RpsThrow, theirs: RpsThrow];

const planners = new Map<number, RpsPlanner>();

/** The planner over the `balanced` bots for `throws` throws per attempt (cached). */
export function rpsTeacherPlanner(throws: number): RpsPlanner {
  let planner = planners.get(throws);
  if (!planner) {
    const members = (POPULATION_PRESETS.rps.balanced ?? []).flatMap(({ id, weight }) => {
      const rule = RPS_BOTS.get(id);
      return rule ? [{ rule, weight }] : [];
    });
    planner = new RpsPlanner(members, throws);
    planners.set(throws, planner);
  }
  return planner;
}

/** The belief after `rounds` of one attempt, starting from `belief`. */
function narrowed(
  planner: RpsPlanner,
  belief: readonly number[],
  rounds: readonly Round[],
): readonly number[] {
  let out = belief;
  rounds.forEach(([, theirs], i) => {
    out = planner.update(out, rounds.slice(0, i), theirs);
  });
  return out;
}

/** The rounds an earlier attempt's lines record. */
const notedRounds = (attempt: FinishedAttemptFactsV1): Round[] =>
  attempt.events.flatMap((e) => {
    const facts = parseRpsEvent(e);
    return facts ? [[facts.mine, facts.theirs] as const] : [];
  });

/**
 * The teacher's best throws after `current` (this attempt's rounds): the memoryless best response, or with
 * `earlier` (the noted attempts) the myopic reader's.
 */
export function rpsTeacherThrows(
  throws: number,
  earlier: readonly FinishedAttemptFactsV1[] | undefined,
  current: readonly Round[],
): RpsThrow[] {
  const planner = rpsTeacherPlanner(throws);
  let belief = planner.everyone;
  for (const attempt of earlier ?? []) belief = narrowed(planner, belief, notedRounds(attempt));
  return planner.bestThrows(narrowed(planner, belief, current), current, 1);
}

/** The weights of rock, paper and scissors when the bots leave a choice among them (see above). */
const TIE_WEIGHTS: Readonly<Record<RpsThrow, number>> = { rock: 4, paper: 2, scissors: 1 };

const asThrow = (value: string, teacher: string): RpsThrow => {
  const t = RPS_THROWS.find((x) => x === value);
  if (!t) {
    throw new InvalidArgumentError(`Teacher '${teacher}': '${value}' in observation.info is not a throw.`);
  }
  return t;
};

export function rpsTeacher(env: RpsEnv, options: TeacherOptions = {}): PolicyV1 {
  const id = 'teacher-rps';
  const throws = typeof env.options.maxTurns === 'number' ? env.options.maxTurns : 3;
  return envTeacher(env, id, options, (observation, rng, notes) => {
    const mine = infoStrings(observation, 'you', id).map((t) => asThrow(t, id));
    const theirs = infoStrings(observation, 'opp', id).map((t) => asThrow(t, id));
    const current = theirs.map((t, i): Round => [mine[i] ?? 'rock', t]);
    const best = rpsTeacherThrows(throws, notes.adaptive ? notes.earlier : undefined, current);
    if (best.length <= 1) return best[0] ?? 'rock';
    return best[rng.weighted(best.map((t) => TIE_WEIGHTS[t]))] ?? 'rock';
  });
}
