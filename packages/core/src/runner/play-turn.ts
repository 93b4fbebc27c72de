/** Applying a play turn's response: parse, step the env, record the row and the step, maybe end the attempt. */

import type { RowRecord } from '@mage-rl/spec';
import { type EnvStepV1, playAnchor } from '@mage-rl/spec';
import { rolloutFailure, slotFailure } from './failures';
import { finishAttempt } from './finish-attempt';
import { RolloutFailureError, type UnsteppedTurn } from './options';
import type { RolloutState } from './rollout-state';
import type { ResponseRowBase } from './rows';
import type { SlotState } from './slot-state';

/**
 * Steps the slot's env with the parsed response and records the play row (anchored at the state the agent
 * acted from) and the step. An env that throws, ends an attempt without an outcome or runs past
 * `maxTurns` is an `ENV_FAILURE` (`OPPONENT_FAILURE` when its opponent threw). The row is recorded only
 * once the step returned: a step that throws leaves no row, and its failure carries the turn as an
 * `UnsteppedTurn` instead.
 */
export function applyPlayTurn<S, A>(
  run: RolloutState<S, A>,
  slot: SlotState<S, A>,
  base: ResponseRowBase,
): RowRecord {
  const { env } = run.options;
  const text = base.responseText;
  const turn = slot.steps.length;
  const unstepped: UnsteppedTurn = {
    ...base,
    attempt: slot.attempt,
    turn,
    phase: 'play',
    anchor: playAnchor(slot.observation.anchor, slot.opponentId ?? undefined),
  };
  const { step, actionText, parsedValid } = stepEnv(run, slot, unstepped);
  const row: RowRecord = {
    ...unstepped,
    reward: step.reward,
    valid: step.valid,
    ...(step.valid ? {} : { invalid: parsedValid ? 'rule' : 'format' }),
  };
  slot.rows.push(row);
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
    endAttempt(run, slot, step);
  } else if (slot.steps.length >= env.maxTurns) {
    throw rolloutFailure(
      run,
      'ENV_FAILURE',
      `Env '${env.id}' did not end the attempt after maxTurns = ${env.maxTurns} turns.`,
      slot,
      undefined,
    );
  }
  return row;
}

/**
 * Parses the turn's response and steps the env with it; also says whether it parsed, and as which action
 * text. What the env (or its opponent) throws becomes a failure that carries `turn`, the response it was
 * stepping; the slot's rows and steps are not touched, so the failure's `partial` ends before that turn.
 */
function stepEnv<S, A>(
  run: RolloutState<S, A>,
  slot: SlotState<S, A>,
  turn: UnsteppedTurn,
): { step: EnvStepV1; actionText: string | null; parsedValid: boolean } {
  try {
    const parsed = slot.episode.parse(turn.responseText);
    const parsedValid = parsed.valid;
    const actionText = parsed.valid ? parsed.text : null;
    return { step: slot.episode.step(parsed), actionText, parsedValid };
  } catch (error) {
    throw slotFailure(run, slot, 'env', `Env '${run.options.env.id}' threw on a play turn`, error, {
      unsteppedTurn: turn,
    });
  }
}

/** The step ended the attempt: it must carry an outcome; whatever throws in between is the env's. */
function endAttempt<S, A>(run: RolloutState<S, A>, slot: SlotState<S, A>, step: EnvStepV1): void {
  const { env } = run.options;
  if (!step.outcome) {
    throw rolloutFailure(
      run,
      'ENV_FAILURE',
      `Env '${env.id}' ended an attempt without an outcome.`,
      slot,
      undefined,
    );
  }
  try {
    finishAttempt(run, slot, step.outcome);
  } catch (error) {
    if (error instanceof RolloutFailureError) throw error;
    throw slotFailure(run, slot, 'env', `Env '${env.id}' failed between attempts`, error);
  }
}
