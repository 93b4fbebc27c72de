/** Pairing parallel lists, checked (checked index reads are core's `at`). */

import { InvalidArgumentError } from '@mage-rl/core';

/** Pairs of equal-length lists, element by element (throws when the lengths differ). */
export function zip<A, B>(as: readonly A[], bs: readonly B[]): [A, B][] {
  if (as.length !== bs.length) {
    throw new InvalidArgumentError(`zip(): lists of ${as.length} and ${bs.length} elements.`);
  }
  const rest = bs[Symbol.iterator]();
  return as.map((a) => {
    const b = rest.next();
    if (b.done === true) throw new InvalidArgumentError('zip(): the second list ended early.');
    return [a, b.value];
  });
}
