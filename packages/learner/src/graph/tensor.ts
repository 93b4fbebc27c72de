/** Typed symbolic tensors of the graph builder. Shapes are static; `-1` marks a dimension unknown at build time. */

import { InvalidArgumentError } from '@mage-rl/core';

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

/** NumPy broadcasting of two static shapes. */
export function broadcastShapes(a: Shape, b: Shape): number[] {
  const rank = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    const da = i < rank - a.length ? 1 : (a[i - (rank - a.length)] as number);
    const db = i < rank - b.length ? 1 : (b[i - (rank - b.length)] as number);
    if (da === db) out.push(da);
    else if (da === 1) out.push(db);
    else if (db === 1) out.push(da);
    else if (da === -1 || db === -1) out.push(Math.max(da, db) === -1 ? -1 : Math.max(da, db));
    else {
      throw new InvalidArgumentError(`Shapes [${a.join(', ')}] and [${b.join(', ')}] do not broadcast.`, {
        context: { a, b },
      });
    }
  }
  return out;
}

export function sameShape(a: Shape, b: Shape): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

export function shapeString(shape: Shape): string {
  return `[${shape.join(', ')}]`;
}
