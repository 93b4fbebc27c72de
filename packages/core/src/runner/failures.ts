/** How the runner turns what a policy, env, opponent or memory throws into a `RolloutFailureError`. */

import type { OpponentV1 } from '@mage-rl/spec';
import { AbortedError, MageError, RolloutError } from '@mage-rl/spec';
import { RolloutFailureError, type UnsteppedTurn } from './options';
import { batchRecord, type RolloutState } from './rollout-state';
import type { SlotState } from './slot-state';

export type FailureCode = 'ENV_FAILURE' | 'POLICY_FAILURE' | 'OPPONENT_FAILURE' | 'RUNNER_FAILURE';

/** The message of an error, or the thrown value as text. */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `OPPONENT_FAILURE` for errors marked by `guardOpponent` (an opponent acts inside `env.step`). */
export function failureCode(error: unknown, fallback: 'ENV_FAILURE' | 'RUNNER_FAILURE'): FailureCode {
  if (MageError.isInstance(error) && error.code === 'OPPONENT_FAILURE') return 'OPPONENT_FAILURE';
  return fallback;
}

/** Marks errors thrown inside an opponent so the runner can report them as `OPPONENT_FAILURE`. */
export function guardOpponent<S, A>(opponent: OpponentV1<S, A>): OpponentV1<S, A> {
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

/** What a failure carries beside its code, message, slot and cause. */
export interface FailureDetails {
  /** Added to the failure's context (e.g. the slots of a policy batch). */
  readonly context?: Record<string, unknown>;
  /** The play turn whose env step threw (see `UnsteppedTurn`). */
  readonly unsteppedTurn?: UnsteppedTurn;
}

/**
 * A failure at `slot` in the current tick: the context names slot, group, opponent, attempt, turn (−1 on
 * reflect turns), phase and tick (plus `details.context`); `partial` holds every row recorded so far.
 */
export function rolloutFailure<S, A>(
  run: RolloutState<S, A>,
  code: FailureCode,
  message: string,
  slot: SlotState<S, A>,
  cause: unknown,
  details: FailureDetails = {},
): RolloutFailureError {
  return new RolloutFailureError(code, message, batchRecord(run), {
    cause,
    context: {
      slot: slot.id,
      group: slot.group.group,
      opponentId: slot.opponentId,
      attempt: slot.attempt,
      turn: slot.phase === 'reflect' ? -1 : slot.steps.length,
      phase: slot.phase,
      tick: run.tick,
      ...details.context,
    },
    ...(details.unsteppedTurn ? { unsteppedTurn: details.unsteppedTurn } : {}),
  });
}

/**
 * What `error`, thrown by the memory or by the env, becomes at `slot`: a `RUNNER_FAILURE` for the memory,
 * an `ENV_FAILURE` for the env (`OPPONENT_FAILURE` when its opponent threw), "<message>: <its message>".
 */
export function slotFailure<S, A>(
  run: RolloutState<S, A>,
  slot: SlotState<S, A>,
  blame: 'memory' | 'env',
  message: string,
  error: unknown,
  details: FailureDetails = {},
): RolloutFailureError {
  const code = blame === 'memory' ? 'RUNNER_FAILURE' : failureCode(error, 'ENV_FAILURE');
  return rolloutFailure(run, code, `${message}: ${describe(error)}`, slot, error, details);
}

/** `fn()`, with whatever it throws reported through `slotFailure`. */
export function guardSlot<S, A, T>(
  run: RolloutState<S, A>,
  slot: SlotState<S, A>,
  blame: 'memory' | 'env',
  message: string,
  fn: () => T,
): T {
  try {
    return fn();
  } catch (error) {
    throw slotFailure(run, slot, blame, message, error);
  }
}

/** Throws an `AbortedError` (with the tick, when given) once `signal` is aborted. */
export function throwIfAbortedHere(signal: AbortSignal | undefined, tick?: number): void {
  if (signal?.aborted) {
    throw new AbortedError('The meta-episode rollout was aborted.', {
      cause: signal.reason,
      ...(tick === undefined ? {} : { context: { tick } }),
    });
  }
}
