/** The policy request of a slot's next turn: a play turn of its attempt, or the reflect turn after it. */

import type { FinishedAttemptFactsV1, PolicyRequestV1 } from '@mage-rl/spec';
import { type MemoryAttemptV1, messagesToText, PLAY_STOP, REFLECT_STOP } from '@mage-rl/spec';
import { guardSlot } from './failures';
import type { RolloutState } from './rollout-state';
import { lastFinished, requestSeed, type SlotState } from './slot-state';

/** A slot's turn in the current tick: its request and the prompt as text (the row's `promptText`). */
export interface PreparedTurn<S, A> {
  readonly slot: SlotState<S, A>;
  readonly request: PolicyRequestV1;
  readonly promptText: string;
}

/** The slot's request for this tick; a throwing memory is a `RUNNER_FAILURE`. */
export function prepareTurn<S, A>(run: RolloutState<S, A>, slot: SlotState<S, A>): PreparedTurn<S, A> {
  const request = guardSlot(
    run,
    slot,
    'memory',
    `Memory '${run.options.memory.id}' failed to build a prompt`,
    () => (slot.phase === 'play' ? playRequest(run, slot) : reflectRequest(run, slot)),
  );
  return { slot, request, promptText: messagesToText(request.messages) };
}

function playRequest<S, A>(run: RolloutState<S, A>, slot: SlotState<S, A>): PolicyRequestV1 {
  const maxTokens = run.options.maxTokens?.play;
  const messages = slot.memory.playMessages({
    attempt: slot.attempt,
    initialText: slot.initialText,
    earlier: slot.earlier,
    current: slot.steps,
    observation: slot.observation,
  });
  const noted = slot.earlier.filter((a) => a.reflection?.valid === true);
  return {
    messages,
    phase: 'play',
    seed: requestSeed(slot, `t${slot.steps.length}`),
    stop: [PLAY_STOP],
    facts: {
      slot: slot.id,
      taskSeed: slot.group.task.seed,
      attempt: slot.attempt,
      observation: slot.observation,
      ...(noted.length > 0 ? { earlier: noted.map(finishedFacts) } : {}),
    },
    ...(maxTokens === undefined ? {} : { maxTokens }),
  };
}

function reflectRequest<S, A>(run: RolloutState<S, A>, slot: SlotState<S, A>): PolicyRequestV1 {
  const maxTokens = run.options.maxTokens?.reflect;
  const finished = lastFinished(slot).attempt;
  const messages = slot.memory.reflectMessages({
    attempt: slot.attempt + 1,
    initialText: finished.initialText,
    earlier: slot.earlier,
  });
  return {
    messages,
    phase: 'reflect',
    seed: requestSeed(slot, 'reflect'),
    stop: [REFLECT_STOP],
    facts: { slot: slot.id, attempt: slot.attempt + 1, finished: finishedFacts(finished) },
    ...(maxTokens === undefined ? {} : { maxTokens }),
  };
}

/** The facts of a finished attempt (what its note can carry). */
function finishedFacts(attempt: MemoryAttemptV1): FinishedAttemptFactsV1 {
  return {
    outcome: attempt.outcome,
    events: attempt.steps.map((s) => s.event),
    ...(attempt.reveal === undefined ? {} : { reveal: attempt.reveal }),
  };
}
