/**
 * The meta-episode runner (SPEC §6 steps 1–3): chooses tasks, plays every slot's K attempts in lock-step
 * batches (one `policy.generate` per tick over the active slots), restarts each attempt from the env's
 * initial state, inserts reflect turns, applies early stop, and records one `RowRecord` per policy call.
 */

import { AbortedError, MageError, RolloutError } from '../errors';
import {
  type MemoryAttemptV1,
  type MemoryReflectionV1,
  type MemorySlotV1,
  type MemoryStepV1,
  messagesToText,
  PLAY_STOP,
  REFLECT_STOP,
} from '../memory';
import { assignOpponents } from '../population';
import type { AttemptRecord, GroupRecord, MetaEpisodeBatchRecord, RowRecord, SlotRecord } from '../records';
import { createRng, type Rng } from '../rng';
import {
  type AttemptOutcome,
  type EnvEpisodeV1,
  type EnvObservationV1,
  type EnvStepV1,
  type OpponentV1,
  type PolicyRequestV1,
  type PolicyResponseV1,
  playAnchor,
  reflectAnchor,
  type Seat,
} from '../spec';
import {
  RolloutFailureError,
  type RunMetaEpisodesOptions,
  type RunnerEvent,
  resolveRunOptions,
  type SeatOption,
} from './options';

interface SlotState<S, A> {
  readonly index: number;
  readonly id: string;
  readonly group: GroupRecord;
  readonly opponentId: string | null;
  readonly rng: Rng;
  readonly episode: EnvEpisodeV1<S, A>;
  readonly memory: MemorySlotV1;
  readonly rows: RowRecord[];
  readonly records: AttemptRecord[];
  readonly earlier: MemoryAttemptV1[];
  attempt: number;
  phase: 'play' | 'reflect' | 'done';
  initialText: string;
  observation: EnvObservationV1;
  steps: MemoryStepV1[];
  attemptReturn: number;
  invalidTurns: number;
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
function seatsForGroups(seats: SeatOption, offset: number, groups: number, rng: Rng): Seat[] {
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

/** Marks errors thrown inside an opponent so the runner can report them as `OPPONENT_FAILURE`. */
function guardOpponent<S, A>(opponent: OpponentV1<S, A>): OpponentV1<S, A> {
  return {
    specificationVersion: 'v1',
    id: opponent.id,
    act(state, context) {
      try {
        return opponent.act(state, context);
      } catch (error) {
        throw new RolloutError('OPPONENT_FAILURE', `Opponent '${opponent.id}' threw: ${describe(error)}`, {
          cause: error,
        });
      }
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

type FailureCode = 'ENV_FAILURE' | 'POLICY_FAILURE' | 'OPPONENT_FAILURE' | 'RUNNER_FAILURE';

function failureCode(error: unknown, fallback: 'ENV_FAILURE' | 'RUNNER_FAILURE'): FailureCode {
  if (MageError.isInstance(error) && error.code === 'OPPONENT_FAILURE') return 'OPPONENT_FAILURE';
  return fallback;
}

/**
 * Runs `groups × groupSize` meta-episodes and yields typed events; the generator's return value is the
 * batch record (also carried by the final `rollout-end` event). On failure it yields `rollout-error` and
 * throws the same `RolloutFailureError`, whose `partial` keeps every row recorded so far.
 */
export async function* iterateMetaEpisodes<S, A>(
  options: RunMetaEpisodesOptions<S, A>,
): AsyncGenerator<RunnerEvent, MetaEpisodeBatchRecord, undefined> {
  const resolved = resolveRunOptions(options);
  const { env, policy, memory, signal } = options;
  const { attempts, iteration } = resolved;
  const root = createRng(options.seed);
  const iterRng = root.split(`iteration-${iteration}`);
  const groupIndex = (g: number) => resolved.groupOffset + g;

  // 1. Tasks: opponents, seats and task seeds per group.
  const opponentIds: (string | null)[][] = !env.needsOpponent
    ? Array.from({ length: options.groups }, () => Array.from({ length: options.groupSize }, () => null))
    : options.population
      ? assignOpponents(options.population, {
          groups: options.groups,
          groupSize: options.groupSize,
          iteration,
          rng: root.split('population'),
        })
      : Array.from({ length: options.groups }, (_, g) => {
          const list = options.opponents as readonly string[];
          const id = list[groupIndex(g) % list.length] as string;
          return Array.from({ length: options.groupSize }, () => id);
        });
  const seats = seatsForGroups(
    options.seats ?? 'first',
    resolved.groupOffset,
    options.groups,
    iterRng.split('seats'),
  );
  const groups: GroupRecord[] = [];
  const slots: SlotState<S, A>[] = [];

  throwIfAbortedHere(signal);
  for (let g = 0; g < options.groups; g++) {
    const groupId = `g${groupIndex(g)}`;
    const groupRng = iterRng.split(groupId);
    const taskSeed = options.taskSeeds?.[g] ?? groupRng.split('task').nextUint32();
    const seat = seats[g] as Seat;
    const groupOpponents = opponentIds[g] as (string | null)[];
    const slotIds = groupOpponents.map((_, s) => `${groupId}/s${s}`);
    const group: GroupRecord = {
      group: groupId,
      task: { envId: env.id, seed: taskSeed, opponentId: groupOpponents[0] ?? null, seat },
      slots: slotIds,
    };
    groups.push(group);
    for (let s = 0; s < slotIds.length; s++) {
      const opponentId = groupOpponents[s] ?? null;
      const slotId = slotIds[s] as string;
      const opponent =
        opponentId !== null && options.makeOpponent
          ? guardOpponent(options.makeOpponent(opponentId))
          : undefined;
      let episode: EnvEpisodeV1<S, A>;
      let observation: EnvObservationV1;
      try {
        episode = env.createEpisode({
          seed: taskSeed,
          seat,
          style: resolved.style,
          rng: createRng(taskSeed),
          ...(opponent ? { opponent } : {}),
        });
        observation = episode.reset(0);
      } catch (error) {
        throw new RolloutError(
          failureCode(error, 'ENV_FAILURE'),
          `Env '${env.id}' failed to create slot ${slotId}: ${describe(error)}`,
          { cause: error, context: { slot: slotId, group: groupId, attempt: 0, turn: 0, phase: 'play' } },
        );
      }
      const memorySlot = memory.createSlot({
        envId: env.id,
        envOptions: env.options,
        style: resolved.style,
        layout: resolved.context,
        rules: episode.rules(),
        opponentId,
        seat,
        taskSeed,
        attempts,
        group: groupId,
        slot: slotId,
      });
      slots.push({
        index: slots.length,
        id: slotId,
        group,
        opponentId,
        rng: groupRng.split(`s${s}`),
        episode,
        memory: memorySlot,
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
      });
    }
  }

  const slotRecord = (slot: SlotState<S, A>): SlotRecord => ({
    slot: slot.id,
    group: slot.group.group,
    task: { ...slot.group.task, opponentId: slot.opponentId },
    attempts: slot.records.slice(),
  });
  const batchRecord = (): MetaEpisodeBatchRecord => ({
    iteration,
    attempts,
    groups,
    slots: slots.map(slotRecord),
    rows: slots.flatMap((s) => s.rows),
  });

  yield { type: 'rollout-start', iteration, attempts, groups, slots: slots.length };

  let tick = 0;
  let policyCalls = 0;
  const pending: RunnerEvent[] = [];

  const fail = (
    code: FailureCode,
    message: string,
    slot: SlotState<S, A>,
    cause: unknown,
    extra: Record<string, unknown> = {},
  ): RolloutFailureError =>
    new RolloutFailureError(code, message, batchRecord(), {
      cause,
      context: {
        slot: slot.id,
        group: slot.group.group,
        opponentId: slot.opponentId,
        attempt: slot.attempt,
        turn: slot.phase === 'reflect' ? -1 : slot.steps.length,
        phase: slot.phase,
        tick,
        ...extra,
      },
    });

  const startAttempt = (slot: SlotState<S, A>, attempt: number): void => {
    slot.attempt = attempt;
    slot.phase = 'play';
    slot.observation = slot.episode.reset(attempt);
    slot.initialText = slot.episode.initialText();
    slot.steps = [];
    slot.attemptReturn = 0;
    slot.invalidTurns = 0;
  };

  const finishAttempt = (slot: SlotState<S, A>, outcome: AttemptOutcome): void => {
    const record: AttemptRecord = {
      attempt: slot.attempt,
      outcome,
      return: slot.attemptReturn,
      turns: slot.steps.length,
      invalidTurns: slot.invalidTurns,
    };
    slot.records.push(record);
    const reveal = slot.episode.reveal();
    slot.earlier.push({
      attempt: slot.attempt,
      initialText: slot.initialText,
      steps: slot.steps,
      outcome,
      return: slot.attemptReturn,
      ...(reveal === undefined ? {} : { reveal }),
    });
    const last = slot.attempt === attempts - 1 || (outcome.success && resolved.earlyStop);
    if (!last && memory.reflects) {
      slot.phase = 'reflect';
      return; // the attempt is announced once its reflection is attached
    }
    slot.memory.attemptEnded(slot.earlier[slot.earlier.length - 1] as MemoryAttemptV1);
    pending.push({ type: 'attempt-end', slot: slot.id, group: slot.group.group, record });
    if (last) {
      slot.phase = 'done';
      pending.push({ type: 'slot-end', record: slotRecord(slot) });
    } else {
      startAttempt(slot, slot.attempt + 1);
    }
  };

  const requestSeed = (slot: SlotState<S, A>, label: string): number =>
    slot.rng.split(`a${slot.attempt}`).split(label).nextUint32();

  try {
    for (;;) {
      const active = slots.filter((s) => s.phase !== 'done');
      if (active.length === 0) break;
      throwIfAbortedHere(signal, tick);

      // 2. One lock-step batch.
      const requests: PolicyRequestV1[] = [];
      const promptTexts: string[] = [];
      for (const slot of active) {
        let request: PolicyRequestV1;
        try {
          if (slot.phase === 'play') {
            const messages = slot.memory.playMessages({
              attempt: slot.attempt,
              initialText: slot.initialText,
              earlier: slot.earlier,
              current: slot.steps,
              observation: slot.observation,
            });
            request = {
              messages,
              phase: 'play',
              seed: requestSeed(slot, `t${slot.steps.length}`),
              stop: [PLAY_STOP],
              facts: { slot: slot.id, attempt: slot.attempt, observation: slot.observation },
              ...(options.maxTokens?.play === undefined ? {} : { maxTokens: options.maxTokens.play }),
            };
          } else {
            const finished = slot.earlier[slot.earlier.length - 1] as MemoryAttemptV1;
            const messages = slot.memory.reflectMessages({
              attempt: slot.attempt + 1,
              initialText: finished.initialText,
              earlier: slot.earlier,
            });
            request = {
              messages,
              phase: 'reflect',
              seed: requestSeed(slot, 'reflect'),
              stop: [REFLECT_STOP],
              facts: {
                slot: slot.id,
                attempt: slot.attempt + 1,
                finished: {
                  outcome: finished.outcome,
                  events: finished.steps.map((s) => s.event),
                  ...(finished.reveal === undefined ? {} : { reveal: finished.reveal }),
                },
              },
              ...(options.maxTokens?.reflect === undefined ? {} : { maxTokens: options.maxTokens.reflect }),
            };
          }
        } catch (error) {
          throw fail(
            'RUNNER_FAILURE',
            `Memory '${memory.id}' failed to build a prompt: ${describe(error)}`,
            slot,
            error,
          );
        }
        requests.push(request);
        promptTexts.push(messagesToText(request.messages));
      }

      let responses: readonly PolicyResponseV1[];
      try {
        responses = await policy.generate(requests, { ...options.sampling, ...(signal ? { signal } : {}) });
      } catch (error) {
        throwIfAbortedHere(signal, tick);
        throw fail(
          'POLICY_FAILURE',
          `Policy '${policy.id}' threw on a batch of ${requests.length} requests: ${describe(error)}`,
          active[0] as SlotState<S, A>,
          error,
          { slots: active.map((s) => s.id) },
        );
      }
      policyCalls++;
      if (!Array.isArray(responses) || responses.length !== requests.length) {
        throw fail(
          'POLICY_FAILURE',
          `Policy '${policy.id}' returned ${Array.isArray(responses) ? responses.length : 'no'} responses for ${requests.length} requests.`,
          active[0] as SlotState<S, A>,
          undefined,
          { slots: active.map((s) => s.id) },
        );
      }

      // 3. Apply responses slot by slot and record rows.
      const tickRows: RowRecord[] = [];
      for (let i = 0; i < active.length; i++) {
        const slot = active[i] as SlotState<S, A>;
        const response = responses[i] as PolicyResponseV1;
        const text = typeof response.text === 'string' ? response.text : '';
        const base = {
          group: slot.group.group,
          slot: slot.id,
          opponentId: slot.opponentId,
          promptText: promptTexts[i] as string,
          responseText: text,
          promptTokens: response.promptTokens ?? [],
          responseTokens: response.tokens ?? [],
          logprobs: response.logprobs ?? [],
        };
        if (base.logprobs.length !== base.responseTokens.length) {
          throw fail(
            'POLICY_FAILURE',
            `Policy '${policy.id}' returned ${base.responseTokens.length} response tokens but ${base.logprobs.length} log-probs.`,
            slot,
            undefined,
          );
        }
        if (slot.phase === 'reflect') {
          let parsed: { note: string; valid: boolean };
          try {
            parsed = slot.memory.parseReflection(text);
          } catch (error) {
            throw fail(
              'RUNNER_FAILURE',
              `Memory '${memory.id}' failed to parse a reflection: ${describe(error)}`,
              slot,
              error,
            );
          }
          const row: RowRecord = {
            ...base,
            attempt: slot.attempt + 1,
            turn: -1,
            phase: 'reflect',
            anchor: reflectAnchor(slot.opponentId ?? undefined),
            reward: 0,
            valid: parsed.valid,
          };
          slot.rows.push(row);
          tickRows.push(row);
          const reflection: MemoryReflectionV1 = {
            prompt: lastContent(requests[i] as PolicyRequestV1),
            response: text,
            responseTokens: base.responseTokens,
            note: parsed.note,
            valid: parsed.valid,
          };
          const k = slot.earlier.length - 1;
          const finished: MemoryAttemptV1 = { ...(slot.earlier[k] as MemoryAttemptV1), reflection };
          slot.earlier[k] = finished;
          const record: AttemptRecord = { ...(slot.records[k] as AttemptRecord), reflection: parsed.note };
          slot.records[k] = record;
          slot.memory.attemptEnded(finished);
          pending.push({ type: 'attempt-end', slot: slot.id, group: slot.group.group, record });
          try {
            startAttempt(slot, slot.attempt + 1);
          } catch (error) {
            throw fail(
              failureCode(error, 'ENV_FAILURE'),
              `Env '${env.id}' failed to reset: ${describe(error)}`,
              slot,
              error,
            );
          }
          continue;
        }

        // Play turn.
        const turn = slot.steps.length;
        let step: EnvStepV1;
        let actionText: string | null;
        let parsedValid: boolean;
        try {
          const parsed = slot.episode.parse(text);
          parsedValid = parsed.valid;
          actionText = parsed.valid ? parsed.text : null;
          step = slot.episode.step(parsed);
        } catch (error) {
          throw fail(
            failureCode(error, 'ENV_FAILURE'),
            `Env '${env.id}' threw on a play turn: ${describe(error)}`,
            slot,
            error,
          );
        }
        const row: RowRecord = {
          ...base,
          attempt: slot.attempt,
          turn,
          phase: 'play',
          anchor: playAnchor(slot.observation.anchor, slot.opponentId ?? undefined),
          reward: step.reward,
          valid: step.valid,
          ...(step.valid ? {} : { invalid: parsedValid ? 'rule' : 'format' }),
        };
        slot.rows.push(row);
        tickRows.push(row);
        slot.steps.push({
          turn,
          observation: slot.observation.text,
          anchor: slot.observation.anchor,
          response: text,
          responseTokens: base.responseTokens,
          action: step.valid ? actionText : null,
          event: step.event,
          reward: step.reward,
          valid: step.valid,
          nextObservation: step.observation.text,
        });
        slot.attemptReturn += step.reward;
        if (!step.valid) slot.invalidTurns++;
        slot.observation = step.observation;
        if (step.done) {
          if (!step.outcome) {
            throw fail(
              'ENV_FAILURE',
              `Env '${env.id}' ended an attempt without an outcome.`,
              slot,
              undefined,
            );
          }
          try {
            finishAttempt(slot, step.outcome);
          } catch (error) {
            if (MageError.isInstance(error) && error instanceof RolloutFailureError) throw error;
            throw fail(
              failureCode(error, 'ENV_FAILURE'),
              `Env '${env.id}' failed between attempts: ${describe(error)}`,
              slot,
              error,
            );
          }
        } else if (slot.steps.length >= env.maxTurns) {
          throw fail(
            'ENV_FAILURE',
            `Env '${env.id}' did not end the attempt after maxTurns = ${env.maxTurns} turns.`,
            slot,
            undefined,
          );
        }
      }
      yield { type: 'turn-end', tick, rows: tickRows, activeSlots: active.length };
      tick++;
      for (const event of pending.splice(0)) yield event;
    }
  } catch (error) {
    if (error instanceof RolloutFailureError) {
      yield { type: 'rollout-error', error };
    }
    throw error;
  }

  memory.commit?.();
  const batch = batchRecord();
  yield { type: 'rollout-end', batch, policyCalls };
  return batch;
}

function throwIfAbortedHere(signal: AbortSignal | undefined, tick?: number): void {
  if (signal?.aborted) {
    throw new AbortedError('The meta-episode rollout was aborted.', {
      cause: signal.reason,
      ...(tick === undefined ? {} : { context: { tick } }),
    });
  }
}

/** Promise wrapper of `iterateMetaEpisodes`; `onEvent` sees every event. */
export async function runMetaEpisodes<S, A>(
  options: RunMetaEpisodesOptions<S, A> & { readonly onEvent?: (event: RunnerEvent) => void },
): Promise<MetaEpisodeBatchRecord> {
  const iterator = iterateMetaEpisodes(options);
  for (;;) {
    const next = await iterator.next();
    if (next.done) return next.value;
    options.onEvent?.(next.value);
  }
}

function lastContent(request: PolicyRequestV1): string {
  return request.messages[request.messages.length - 1]?.content ?? '';
}
