/** Outcome records and step-result assembly shared by the three envs. */

import type { AttemptOutcome, EnvObservationV1, EnvStepV1 } from '@mage-rl/spec';

export const OUTCOME_WIN: AttemptOutcome = { success: true, draw: false, truncated: false, label: 'win' };
export const OUTCOME_LOSS: AttemptOutcome = { success: false, draw: false, truncated: false, label: 'loss' };
export const OUTCOME_DRAW: AttemptOutcome = { success: false, draw: true, truncated: false, label: 'draw' };
export const OUTCOME_TRUNCATED: AttemptOutcome = {
  success: false,
  draw: false,
  truncated: true,
  label: 'truncated',
};
export const OUTCOME_SOLVED: AttemptOutcome = {
  success: true,
  draw: false,
  truncated: false,
  label: 'solved',
};
export const OUTCOME_DEADLOCK: AttemptOutcome = {
  success: false,
  draw: false,
  truncated: false,
  label: 'deadlock',
};

export function stepResult(
  observation: EnvObservationV1,
  reward: number,
  valid: boolean,
  event: string,
  outcome: AttemptOutcome | undefined,
): EnvStepV1 {
  return outcome
    ? { observation, reward, valid, event, done: true, outcome }
    : { observation, reward, valid, event, done: false };
}
