/** One lock-step batch: a single `policy.generate` call over the turns of every active slot. */

import type { PolicyResponseV1 } from '@mage-rl/spec';
import { at } from '@mage-rl/spec';
import { describe, rolloutFailure, throwIfAbortedHere } from './failures';
import type { RolloutState } from './rollout-state';
import type { SlotState } from './slot-state';
import type { PreparedTurn } from './turn-requests';

/** A prepared turn with the policy's response to it. */
export interface AnsweredTurn<S, A> extends PreparedTurn<S, A> {
  readonly response: PolicyResponseV1;
}

/**
 * Sends every turn's request in one `generate` call and pairs each turn with its response. A throwing
 * policy, or one that answers with another number of responses, is a `POLICY_FAILURE` reported at
 * `first` (the first active slot) with the ids of every slot in the batch.
 */
export async function generateBatch<S, A>(
  run: RolloutState<S, A>,
  turns: readonly PreparedTurn<S, A>[],
  first: SlotState<S, A>,
): Promise<AnsweredTurn<S, A>[]> {
  const { policy, sampling, signal } = run.options;
  const requests = turns.map((t) => t.request);
  const batchContext = () => ({ slots: turns.map((t) => t.slot.id) });
  let responses: readonly PolicyResponseV1[];
  try {
    responses = await policy.generate(requests, { ...sampling, ...(signal ? { signal } : {}) });
  } catch (error) {
    throwIfAbortedHere(signal, run.tick);
    throw rolloutFailure(
      run,
      'POLICY_FAILURE',
      `Policy '${policy.id}' threw on a batch of ${requests.length} requests: ${describe(error)}`,
      first,
      error,
      { context: batchContext() },
    );
  }
  run.policyCalls++;
  if (!Array.isArray(responses) || responses.length !== requests.length) {
    throw rolloutFailure(
      run,
      'POLICY_FAILURE',
      `Policy '${policy.id}' returned ${Array.isArray(responses) ? responses.length : 'no'} responses for ${requests.length} requests.`,
      first,
      undefined,
      { context: batchContext() },
    );
  }
  return responses.map((response, i) => ({ ...at(turns, i), response }));
}
