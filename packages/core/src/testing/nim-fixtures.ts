/** Set-up shared by tests that play Nim through the runner: opponents by id and reading the pile off a prompt. */

import type { OpponentV1, PolicyRequestV1 } from '@mage-rl/spec';
import { type NimAction, type NimState, nimGame } from './nim';
import { firstLegalOpponent } from './scripted';

/**
 * A `makeOpponent` for Nim: each of `opponents` under its own id, and a first-legal-move opponent under
 * any other id.
 */
export function nimOpponents(
  ...opponents: readonly OpponentV1<NimState, NimAction>[]
): (id: string) => OpponentV1<NimState, NimAction> {
  return (id) => opponents.find((o) => o.id === id) ?? firstLegalOpponent(nimGame, id);
}

/** The pile a Nim prompt shows: the last number in the request's last message (1 when it has none). */
export function nimPileOf(request: PolicyRequestV1): number {
  const text = request.messages[request.messages.length - 1]?.content ?? '';
  const numbers = text.match(/\d+/g) ?? [];
  return Number(numbers[numbers.length - 1] ?? 1);
}
