/** Turning the policy's responses into rows: the fields every row shares, then the phase's own. */

import type { PolicyRequestV1, RowRecord } from '@mage-rl/spec';
import { rolloutFailure } from './failures';
import type { AnsweredTurn } from './generate-batch';
import { applyPlayTurn } from './play-turn';
import { applyReflectTurn } from './reflect-turn';
import type { RolloutState } from './rollout-state';

/** The fields of a row that come from the slot, the prompt and the response. */
export type ResponseRowBase = Pick<
  RowRecord,
  | 'group'
  | 'slot'
  | 'opponentId'
  | 'promptText'
  | 'responseText'
  | 'promptTokens'
  | 'responseTokens'
  | 'logprobs'
  | 'cut'
>;

/** Applies one answered turn to its slot and returns the row it recorded. */
export function applyResponse<S, A>(run: RolloutState<S, A>, turn: AnsweredTurn<S, A>): RowRecord {
  const base = responseRowBase(run, turn);
  return turn.slot.phase === 'reflect'
    ? applyReflectTurn(run, turn.slot, base, lastContent(turn.request))
    : applyPlayTurn(run, turn.slot, base);
}

/**
 * The shared row fields; a response text that is not a string counts as empty, missing token ids and
 * log-probs as empty lists. A policy whose log-probs do not match its tokens is a `POLICY_FAILURE`.
 */
function responseRowBase<S, A>(run: RolloutState<S, A>, turn: AnsweredTurn<S, A>): ResponseRowBase {
  const { slot, response } = turn;
  const base = {
    group: slot.group.group,
    slot: slot.id,
    opponentId: slot.opponentId,
    promptText: turn.promptText,
    responseText: typeof response.text === 'string' ? response.text : '',
    promptTokens: response.promptTokens ?? [],
    responseTokens: response.tokens ?? [],
    logprobs: response.logprobs ?? [],
    ...(response.finishReason === 'length' ? { cut: true as const } : {}),
  };
  if (base.logprobs.length !== base.responseTokens.length) {
    throw rolloutFailure(
      run,
      'POLICY_FAILURE',
      `Policy '${run.options.policy.id}' returned ${base.responseTokens.length} response tokens but ${base.logprobs.length} log-probs.`,
      slot,
      undefined,
    );
  }
  return base;
}

function lastContent(request: PolicyRequestV1): string {
  return request.messages.at(-1)?.content ?? '';
}
