/**
 * Starting a run's meta-episodes: per group a task (seed, seat, opponent), per slot an env episode reset
 * to attempt 0, a fresh opponent and a memory slot.
 */

import type { EnvEpisodeV1, EnvObservationV1, GroupRecord, OpponentV1, Seat } from '@mage-rl/spec';
import { at, RolloutError } from '@mage-rl/spec';
import { createRng, type Rng } from '../rng';
import { describe, failureCode, guardOpponent } from './failures';
import type { ResolvedRunOptions, RunMetaEpisodesOptions } from './options';
import type { SlotState } from './slot-state';
import type { TaskPlan } from './tasks';

/**
 * Groups `g<offset + g>` with their slots `g<…>/s<s>`. A group's task seed is `taskSeeds[g]` or drawn
 * from `…/iteration-i/g<…>/task`; its slots share the seed and the seat.
 */
export function startGroups<S, A>(
  options: RunMetaEpisodesOptions<S, A>,
  resolved: ResolvedRunOptions,
  plan: TaskPlan,
  iterationRng: Rng,
): { groups: GroupRecord[]; slots: SlotState<S, A>[] } {
  const groups: GroupRecord[] = [];
  const slots: SlotState<S, A>[] = [];
  plan.opponentIds.forEach((groupOpponents, g) => {
    const groupId = `g${resolved.groupOffset + g}`;
    const groupRng = iterationRng.split(groupId);
    const taskSeed = options.taskSeeds?.[g] ?? groupRng.split('task').nextUint32();
    const seat = at(plan.seats, g);
    const slotIds = groupOpponents.map((_, s) => `${groupId}/s${s}`);
    const group: GroupRecord = {
      group: groupId,
      task: { envId: options.env.id, seed: taskSeed, opponentId: groupOpponents[0] ?? null, seat },
      slots: slotIds,
    };
    groups.push(group);
    for (const [s, opponentId] of groupOpponents.entries()) {
      const start = { group, slotId: `${groupId}/s${s}`, opponentId, rng: groupRng.split(`s${s}`) };
      slots.push(startSlot(options, resolved, start));
    }
  });
  return { groups, slots };
}

interface SlotStart {
  readonly group: GroupRecord;
  readonly slotId: string;
  readonly opponentId: string | null;
  readonly rng: Rng;
}

/** One meta-episode at attempt 0: its opponent, its env episode (reset) and its memory slot. */
function startSlot<S, A>(
  options: RunMetaEpisodesOptions<S, A>,
  resolved: ResolvedRunOptions,
  start: SlotStart,
): SlotState<S, A> {
  const { env } = options;
  const { group, slotId, opponentId } = start;
  const { seed: taskSeed, seat } = group.task;
  const opponent =
    opponentId !== null && options.makeOpponent ? guardOpponent(options.makeOpponent(opponentId)) : undefined;
  const { episode, observation } = createEpisode(
    options,
    resolved,
    { slotId, group: group.group, seat, taskSeed },
    opponent,
  );
  const memory = options.memory.createSlot({
    envId: env.id,
    envOptions: env.options,
    style: resolved.style,
    layout: resolved.context,
    rules: episode.rules(),
    opponentId,
    seat,
    taskSeed,
    attempts: resolved.attempts,
    group: group.group,
    slot: slotId,
  });
  return {
    id: slotId,
    group,
    opponentId,
    rng: start.rng,
    episode,
    memory,
    rows: [],
    records: [],
    earlier: [],
    attempt: 0,
    phase: 'play',
    initialText: episode.initialText(),
    observation,
    steps: [],
    attemptReturn: 0,
    invalidTurns: 0,
  };
}

/** The slot's env episode, reset to attempt 0; a throwing env is an `ENV_FAILURE` naming the slot. */
function createEpisode<S, A>(
  options: RunMetaEpisodesOptions<S, A>,
  resolved: ResolvedRunOptions,
  where: { slotId: string; group: string; seat: Seat; taskSeed: number },
  opponent: OpponentV1<S, A> | undefined,
): { episode: EnvEpisodeV1<S, A>; observation: EnvObservationV1 } {
  const { env } = options;
  try {
    const episode = env.createEpisode({
      seed: where.taskSeed,
      seat: where.seat,
      style: resolved.style,
      rng: createRng(where.taskSeed),
      ...(opponent ? { opponent } : {}),
    });
    return { episode, observation: episode.reset(0) };
  } catch (error) {
    throw new RolloutError(
      failureCode(error, 'ENV_FAILURE'),
      `Env '${env.id}' failed to create slot ${where.slotId}: ${describe(error)}`,
      {
        cause: error,
        context: { slot: where.slotId, group: where.group, attempt: 0, turn: 0, phase: 'play' },
      },
    );
  }
}
