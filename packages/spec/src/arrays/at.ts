/** A checked element read, for the few places where an index is known to be in range. */

import { InvalidArgumentError } from '../errors/mage-error';

/** `items[index]`; throws an `InvalidArgumentError` when the index is out of range. */
export function at<T>(items: ArrayLike<T>, index: number): T {
  if (!Number.isInteger(index) || index < 0 || index >= items.length) {
    throw new InvalidArgumentError(`Index ${index} is out of range for a list of ${items.length}.`);
  }
  return items[index] as T;
}
