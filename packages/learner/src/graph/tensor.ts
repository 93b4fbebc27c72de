/** Typed symbolic tensors of the graph builder. Shapes are static; `-1` marks a dimension unknown at build time. */

import { InvalidArgumentError } from '@mage-rl/core';
import { zip } from '../util/arrays';

export type DType = 'float32' | 'float64' | 'float16' | 'int64' | 'int32' | 'bool';

export type FloatDType = 'float32' | 'float64';

export type Shape = readonly number[];

export interface Tensor {
  /** Unique within its graph; nodes are created in topological order. */
  readonly id: number;
  /** Value name in the serialised ONNX graph. */
  readonly name: string;
  readonly dtype: DType;
  readonly shape: Shape;
}

/** ONNX `TensorProto.DataType` codes. */
export const ONNX_DTYPE: Readonly<Record<DType, number>> = {
  float32: 1,
  int32: 6,
  int64: 7,
  bool: 9,
  float16: 10,
  float64: 11,
};

export function isFloat(dtype: DType): dtype is FloatDType | 'float16' {
  return dtype === 'float32' || dtype === 'float64' || dtype === 'float16';
}

/** Number of elements (−1 if any dimension is unknown). */
export function sizeOf(shape: Shape): number {
  let n = 1;
  for (const d of shape) {
    if (d < 0) return -1;
    n *= d;
  }
  return n;
}

export function normAxis(axis: number, rank: number): number {
  const a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) {
    throw new InvalidArgumentError(`Axis ${axis} is out of range for rank ${rank}.`, {
      context: { axis, rank },
    });
  }
  return a;
}

/** The size of `shape` along `axis` (negative axes count from the end); throws when out of range. */
export function dimAt(shape: Shape, axis: number): number {
  const d = shape[normAxis(axis, shape.length)];
  if (d === undefined)
    throw new InvalidArgumentError(`Axis ${axis} is out of range for rank ${shape.length}.`);
  return d;
}

/** ONNX `pads` (every axis' begin, then every axis' end) as one [begin, end] pair per axis. */
export function padPairs(pads: readonly number[]): [number, number][] {
  const rank = Math.floor(pads.length / 2);
  return zip(pads.slice(0, rank), pads.slice(rank));
}

/** `shape` with leading 1s up to `rank`. */
const padRank = (shape: Shape, rank: number): number[] => [
  ...new Array<number>(rank - shape.length).fill(1),
  ...shape,
];

/** NumPy broadcasting of two static shapes. */
export function broadcastShapes(a: Shape, b: Shape): number[] {
  const rank = Math.max(a.length, b.length);
  return zip(padRank(a, rank), padRank(b, rank)).map(([da, db]) => {
    if (da === db) return da;
    if (da === 1) return db;
    if (db === 1) return da;
    if (da === -1 || db === -1) return Math.max(da, db) === -1 ? -1 : Math.max(da, db);
    throw new InvalidArgumentError(`Shapes [${a.join(', ')}] and [${b.join(', ')}] do not broadcast.`, {
      context: { a, b },
    });
  });
}

export function sameShape(a: Shape, b: Shape): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

export function shapeString(shape: Shape): string {
  return `[${shape.join(', ')}]`;
}
