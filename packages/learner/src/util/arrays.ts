/** Small checked helpers for parallel lists and typed arrays. */

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

/** `values[i]`, checked to be in range (for the few reads whose index comes from another array). */
export function at(values: Float32Array | Float64Array, i: number): number {
  const v = values[i];
  if (v === undefined) throw new RangeError(`Index ${i} is outside an array of ${values.length} values.`);
  return v;
}
