/**
 * Checked reads by a computed index (a bucket id, the row of a parallel column), for indices the caller
 * has proven in range; they throw a `RangeError` when one is not. Numbers and objects have an accessor
 * each, so that V8 sees one kind of array per accessor and keeps the hot loops fast.
 */

/** `xs[i]` of a numeric column. */
export function at(xs: ArrayLike<number>, i: number): number {
  const x = xs[i];
  if (x === undefined) throw new RangeError(`index ${i} is outside 0..${xs.length - 1}.`);
  return x;
}

/** `xs[i]` of an array of objects (rows, slots). */
export function itemAt<T extends object>(xs: readonly T[], i: number): T {
  const x = xs[i];
  if (x === undefined) throw new RangeError(`index ${i} is outside 0..${xs.length - 1}.`);
  return x;
}
