/**
 * A small ONNX graph builder with static shape inference. Every op helper records one node (or a few)
 * and returns typed tensors; `gradients()` (autodiff.ts) walks the recorded nodes backwards.
 */

import { InvalidArgumentError } from '@mage-rl/core';
import { zip } from '../util/arrays';
import {
  broadcastShapes,
  type DType,
  dimAt,
  type FloatDType,
  isFloat,
  normAxis,
  padPairs,
  type Shape,
  sameShape,
  shapeString,
  sizeOf,
  type Tensor,
} from './tensor';

export type AttrValue =
  | { readonly int: number }
  | { readonly float: number }
  | { readonly ints: readonly number[] }
  | { readonly floats: readonly number[] }
  | { readonly str: string };

/** A custom vector-Jacobian product: output cotangents (null = zero) to input cotangents. */
export type VjpFn = (g: Graph, gradOutputs: readonly (Tensor | null)[]) => readonly (Tensor | null)[];

export interface GraphNode {
  readonly op: string;
  readonly inputs: readonly (Tensor | null)[];
  readonly outputs: readonly Tensor[];
  readonly attrs: Readonly<Record<string, AttrValue>>;
  /** Tensors the autodiff differentiates this node's outputs by (default: `inputs`). */
  readonly diffInputs?: readonly Tensor[];
  /** Gradients do not flow through this node. */
  readonly noGrad?: boolean;
  /** Set on the output identities of a `custom()` composite: one VJP for all of them. */
  readonly group?: CustomGroup;
}

export interface CustomGroup {
  readonly inputs: readonly Tensor[];
  readonly outputs: Tensor[];
  readonly vjp: VjpFn;
}

export type ConstantData =
  | Float32Array
  | Float64Array
  | BigInt64Array
  | Int32Array
  | Uint8Array
  | Uint16Array;

export interface GraphInput {
  readonly tensor: Tensor;
}

export interface GemmOptions {
  readonly transA?: boolean;
  readonly transB?: boolean;
  readonly bias?: Tensor;
}

export interface CreateGraphOptions {
  /** Float type of constants created from plain numbers. */
  readonly float?: FloatDType;
}

/** The graph under construction. Ops append nodes in topological order. */
export interface Graph {
  readonly float: FloatDType;
  readonly nodes: readonly GraphNode[];
  readonly inputs: readonly Tensor[];
  readonly outputs: readonly { readonly name: string; readonly tensor: Tensor }[];
  readonly constants: ReadonlyMap<number, ConstantData>;
  producer(t: Tensor): GraphNode | undefined;

  input(name: string, shape: Shape, dtype?: DType): Tensor;
  /** Constant initializer. `data` length must equal the shape's size. */
  constant(data: ConstantData | readonly number[], shape: Shape, dtype?: DType): Tensor;
  scalar(value: number, dtype?: DType): Tensor;
  int64s(values: readonly number[]): Tensor;
  /** Marks `t` as a graph output named `name`. */
  output(name: string, t: Tensor): void;

  add(a: Tensor, b: Tensor): Tensor;
  sub(a: Tensor, b: Tensor): Tensor;
  mul(a: Tensor, b: Tensor): Tensor;
  div(a: Tensor, b: Tensor): Tensor;
  sum(xs: readonly Tensor[]): Tensor;
  neg(x: Tensor): Tensor;
  exp(x: Tensor): Tensor;
  log(x: Tensor): Tensor;
  sqrt(x: Tensor): Tensor;
  reciprocal(x: Tensor): Tensor;
  sigmoid(x: Tensor): Tensor;
  tanh(x: Tensor): Tensor;
  pow(x: Tensor, exponent: number): Tensor;
  matmul(a: Tensor, b: Tensor): Tensor;
  /** 2-D `op(a)·op(b) (+ bias)`. */
  gemm(a: Tensor, b: Tensor, options?: GemmOptions): Tensor;

  reshape(x: Tensor, shape: Shape): Tensor;
  transpose(x: Tensor, perm: readonly number[]): Tensor;
  /** `x[start:end]` along one axis. */
  slice(x: Tensor, axis: number, start: number, end: number): Tensor;
  concat(xs: readonly Tensor[], axis: number): Tensor;
  expand(x: Tensor, shape: Shape): Tensor;
  /** Zero padding: `pads` = [begin_0, …, begin_n, end_0, …, end_n]. */
  pad(x: Tensor, pads: readonly number[]): Tensor;

  reduceSum(x: Tensor, axes: readonly number[], keepdims?: boolean): Tensor;
  reduceMean(x: Tensor, axes: readonly number[], keepdims?: boolean): Tensor;
  /** No gradient flows through a max. */
  reduceMax(x: Tensor, axes: readonly number[], keepdims?: boolean): Tensor;
  softmax(x: Tensor, axis?: number): Tensor;
  logSoftmax(x: Tensor, axis?: number): Tensor;

  /** `data[indices]` along axis 0 (embedding lookup). */
  gather(data: Tensor, indices: Tensor): Tensor;
  gatherElements(data: Tensor, indices: Tensor, axis: number): Tensor;
  /** `data` with `updates` added at `indices` (indices shape [..., 1] over axis 0). */
  scatterNDAdd(data: Tensor, indices: Tensor, updates: Tensor): Tensor;
  scatterElementsAdd(data: Tensor, indices: Tensor, updates: Tensor, axis: number): Tensor;
  where(condition: Tensor, a: Tensor, b: Tensor): Tensor;
  cast(x: Tensor, dtype: DType): Tensor;
  identity(x: Tensor): Tensor;
  stopGradient(x: Tensor): Tensor;
  zeros(shape: Shape, dtype?: DType): Tensor;
  /** Any ONNX op without a VJP rule (shape, masks, ranges…); gradients do not flow through it. */
  raw(
    op: string,
    inputs: readonly (Tensor | null)[],
    out: { dtype: DType; shape: Shape },
    attrs?: Record<string, AttrValue>,
  ): Tensor;

  /**
   * A composite whose forward nodes were built by `forward` and whose backward pass is `vjp`: the
   * autodiff does not look inside. Returns identities of the forward outputs.
   */
  custom(options: {
    readonly inputs: readonly Tensor[];
    readonly forward: () => readonly Tensor[];
    readonly vjp: VjpFn;
  }): Tensor[];
}

class GraphImpl implements Graph {
  readonly float: FloatDType;
  readonly nodes: GraphNode[] = [];
  readonly inputs: Tensor[] = [];
  readonly outputs: { name: string; tensor: Tensor }[] = [];
  readonly constants = new Map<number, ConstantData>();
  private readonly producers = new Map<number, GraphNode>();
  private readonly names = new Set<string>();
  private nextId = 0;

  constructor(float: FloatDType) {
    this.float = float;
  }

  producer(t: Tensor): GraphNode | undefined {
    return this.producers.get(t.id);
  }

  private tensor(dtype: DType, shape: Shape, name?: string): Tensor {
    const id = this.nextId++;
    const n = name ?? `t${id}`;
    if (this.names.has(n)) throw new InvalidArgumentError(`Duplicate graph value name '${n}'.`);
    this.names.add(n);
    return { id, name: n, dtype, shape: [...shape] };
  }

  private emit(
    op: string,
    inputs: readonly (Tensor | null)[],
    outs: readonly { dtype: DType; shape: Shape }[],
    attrs: Record<string, AttrValue> = {},
    extra: Partial<Pick<GraphNode, 'diffInputs' | 'noGrad' | 'group'>> = {},
  ): Tensor[] {
    const outputs = outs.map((o) => this.tensor(o.dtype, o.shape));
    const node: GraphNode = { op, inputs, outputs, attrs, ...extra };
    this.nodes.push(node);
    for (const o of outputs) this.producers.set(o.id, node);
    return outputs;
  }

  private one(
    op: string,
    inputs: readonly (Tensor | null)[],
    dtype: DType,
    shape: Shape,
    attrs: Record<string, AttrValue> = {},
    extra: Partial<Pick<GraphNode, 'diffInputs' | 'noGrad' | 'group'>> = {},
  ): Tensor {
    return this.emit(op, inputs, [{ dtype, shape }], attrs, extra)[0] as Tensor;
  }

  input(name: string, shape: Shape, dtype: DType = this.float): Tensor {
    const t = this.tensor(dtype, shape, name);
    this.inputs.push(t);
    return t;
  }

  constant(data: ConstantData | readonly number[], shape: Shape, dtype: DType = this.float): Tensor {
    const n = sizeOf(shape);
    if (n !== data.length) {
      throw new InvalidArgumentError(`Constant has ${data.length} values for shape ${shapeString(shape)}.`);
    }
    const t = this.tensor(dtype, shape);
    this.constants.set(t.id, toTyped(data, dtype));
    return t;
  }

  scalar(value: number, dtype: DType = this.float): Tensor {
    return this.constant([value], [], dtype);
  }

  int64s(values: readonly number[]): Tensor {
    return this.constant(values, [values.length], 'int64');
  }

  output(name: string, t: Tensor): void {
    if (this.outputs.some((o) => o.name === name))
      throw new InvalidArgumentError(`Duplicate output '${name}'.`);
    this.outputs.push({ name, tensor: t });
  }

  private binary(op: string, a: Tensor, b: Tensor): Tensor {
    checkSameType(op, a, b);
    return this.one(op, [a, b], a.dtype, broadcastShapes(a.shape, b.shape));
  }

  add(a: Tensor, b: Tensor): Tensor {
    return this.binary('Add', a, b);
  }
  sub(a: Tensor, b: Tensor): Tensor {
    return this.binary('Sub', a, b);
  }
  mul(a: Tensor, b: Tensor): Tensor {
    return this.binary('Mul', a, b);
  }
  div(a: Tensor, b: Tensor): Tensor {
    return this.binary('Div', a, b);
  }
  sum(xs: readonly Tensor[]): Tensor {
    const first = xs[0];
    if (first === undefined) throw new InvalidArgumentError('sum() needs at least one tensor.');
    if (xs.length === 1) return first;
    let shape: Shape = first.shape;
    for (const x of xs) {
      checkSameType('Sum', first, x);
      shape = broadcastShapes(shape, x.shape);
    }
    return this.one('Sum', xs, first.dtype, shape);
  }
  private unary(op: string, x: Tensor): Tensor {
    return this.one(op, [x], x.dtype, x.shape);
  }
  neg(x: Tensor): Tensor {
    return this.unary('Neg', x);
  }
  exp(x: Tensor): Tensor {
    return this.unary('Exp', x);
  }
  log(x: Tensor): Tensor {
    return this.unary('Log', x);
  }
  sqrt(x: Tensor): Tensor {
    return this.unary('Sqrt', x);
  }
  reciprocal(x: Tensor): Tensor {
    return this.unary('Reciprocal', x);
  }
  sigmoid(x: Tensor): Tensor {
    return this.unary('Sigmoid', x);
  }
  tanh(x: Tensor): Tensor {
    return this.unary('Tanh', x);
  }
  pow(x: Tensor, exponent: number): Tensor {
    return this.one('Pow', [x, this.scalar(exponent, x.dtype)], x.dtype, x.shape);
  }

  matmul(a: Tensor, b: Tensor): Tensor {
    checkSameType('MatMul', a, b);
    if (a.shape.length < 2 || b.shape.length < 2) {
      throw new InvalidArgumentError('matmul() needs tensors of rank >= 2.');
    }
    const m = dimAt(a.shape, -2);
    const k = dimAt(a.shape, -1);
    const k2 = dimAt(b.shape, -2);
    const n = dimAt(b.shape, -1);
    if (k !== k2 && k >= 0 && k2 >= 0) {
      throw new InvalidArgumentError(
        `matmul(): inner dimensions differ (${shapeString(a.shape)} · ${shapeString(b.shape)}).`,
      );
    }
    const batch = broadcastShapes(a.shape.slice(0, -2), b.shape.slice(0, -2));
    return this.one('MatMul', [a, b], a.dtype, [...batch, m, n]);
  }

  gemm(a: Tensor, b: Tensor, options: GemmOptions = {}): Tensor {
    checkSameType('Gemm', a, b);
    if (a.shape.length !== 2 || b.shape.length !== 2)
      throw new InvalidArgumentError('gemm() needs 2-D tensors.');
    const transA = options.transA ?? false;
    const transB = options.transB ?? false;
    const [a0, a1] = a.shape as [number, number];
    const [b0, b1] = b.shape as [number, number];
    const m = transA ? a1 : a0;
    const k = transA ? a0 : a1;
    const k2 = transB ? b1 : b0;
    const n = transB ? b0 : b1;
    if (k !== k2) {
      throw new InvalidArgumentError(
        `gemm(): inner dimensions differ (${shapeString(a.shape)}${transA ? 'ᵀ' : ''} · ${shapeString(b.shape)}${transB ? 'ᵀ' : ''}).`,
      );
    }
    const inputs: Tensor[] = [a, b];
    if (options.bias !== undefined) {
      broadcastShapes([m, n], options.bias.shape);
      inputs.push(options.bias);
    }
    return this.one('Gemm', inputs, a.dtype, [m, n], {
      transA: { int: transA ? 1 : 0 },
      transB: { int: transB ? 1 : 0 },
    });
  }

  reshape(x: Tensor, shape: Shape): Tensor {
    // ONNX semantics: 0 copies the input dimension, one -1 is inferred.
    const out = shape.map((d, i) => (d === 0 ? (x.shape[i] ?? 0) : d));
    const known = sizeOf(x.shape);
    const minus = out.indexOf(-1);
    if (minus >= 0 && known >= 0) {
      const rest = out.reduce((p, d, i) => (i === minus ? p : p * d), 1);
      out[minus] = known / rest;
    }
    if (known >= 0 && sizeOf(out) !== known) {
      throw new InvalidArgumentError(
        `reshape(): ${shapeString(x.shape)} cannot become ${shapeString(shape)}.`,
      );
    }
    if (sameShape(out, x.shape)) return x;
    return this.one('Reshape', [x, this.int64s(shape)], x.dtype, out);
  }

  transpose(x: Tensor, perm: readonly number[]): Tensor {
    if (perm.length !== x.shape.length || [...perm].sort((p, q) => p - q).some((p, i) => p !== i)) {
      throw new InvalidArgumentError(
        `transpose(): bad permutation [${perm.join(', ')}] for rank ${x.shape.length}.`,
      );
    }
    return this.one(
      'Transpose',
      [x],
      x.dtype,
      perm.map((p) => dimAt(x.shape, p)),
      { perm: { ints: perm } },
    );
  }

  slice(x: Tensor, axis: number, start: number, end: number): Tensor {
    const a = normAxis(axis, x.shape.length);
    const dim = dimAt(x.shape, a);
    if (!(start >= 0 && end <= dim && start < end)) {
      throw new InvalidArgumentError(`slice(): [${start}, ${end}) is outside axis ${a} of size ${dim}.`);
    }
    const shape = [...x.shape];
    shape[a] = end - start;
    return this.one('Slice', [x, this.int64s([start]), this.int64s([end]), this.int64s([a])], x.dtype, shape);
  }

  concat(xs: readonly Tensor[], axis: number): Tensor {
    const first = xs[0];
    if (first === undefined) throw new InvalidArgumentError('concat() needs at least one tensor.');
    if (xs.length === 1) return first;
    const a = normAxis(axis, first.shape.length);
    let total = 0;
    for (const x of xs) {
      checkSameType('Concat', first, x);
      if (x.shape.length !== first.shape.length || x.shape.some((d, i) => i !== a && d !== first.shape[i])) {
        throw new InvalidArgumentError(
          `concat(): ${shapeString(x.shape)} does not match ${shapeString(first.shape)}.`,
        );
      }
      total += dimAt(x.shape, a);
    }
    const shape = [...first.shape];
    shape[a] = total;
    return this.one('Concat', xs, first.dtype, shape, { axis: { int: a } });
  }

  expand(x: Tensor, shape: Shape): Tensor {
    const out = broadcastShapes(x.shape, shape);
    if (sameShape(out, x.shape)) return x;
    return this.one('Expand', [x, this.int64s(shape)], x.dtype, out);
  }

  pad(x: Tensor, pads: readonly number[]): Tensor {
    const r = x.shape.length;
    if (pads.length !== 2 * r || pads.some((p) => p < 0)) throw new InvalidArgumentError('pad(): bad pads.');
    const shape = zip(x.shape, padPairs(pads)).map(([d, [begin, end]]) => d + begin + end);
    return this.one('Pad', [x, this.int64s(pads)], x.dtype, shape, { mode: { str: 'constant' } });
  }

  private reduce(op: string, x: Tensor, axes: readonly number[], keepdims: boolean, extra = {}): Tensor {
    const r = x.shape.length;
    const norm = [...new Set(axes.map((a) => normAxis(a, r)))].sort((p, q) => p - q);
    const shape: number[] = [];
    x.shape.forEach((d, i) => {
      if (!norm.includes(i)) shape.push(d);
      else if (keepdims) shape.push(1);
    });
    return this.one(
      op,
      [x, this.int64s(norm)],
      x.dtype,
      shape,
      { keepdims: { int: keepdims ? 1 : 0 } },
      extra,
    );
  }

  reduceSum(x: Tensor, axes: readonly number[], keepdims = true): Tensor {
    return this.reduce('ReduceSum', x, axes, keepdims);
  }
  reduceMean(x: Tensor, axes: readonly number[], keepdims = true): Tensor {
    return this.reduce('ReduceMean', x, axes, keepdims);
  }
  reduceMax(x: Tensor, axes: readonly number[], keepdims = true): Tensor {
    return this.reduce('ReduceMax', x, axes, keepdims, { noGrad: true });
  }
  softmax(x: Tensor, axis = -1): Tensor {
    return this.one('Softmax', [x], x.dtype, x.shape, { axis: { int: normAxis(axis, x.shape.length) } });
  }
  logSoftmax(x: Tensor, axis = -1): Tensor {
    return this.one('LogSoftmax', [x], x.dtype, x.shape, { axis: { int: normAxis(axis, x.shape.length) } });
  }

  gather(data: Tensor, indices: Tensor): Tensor {
    checkIndex('gather', indices);
    return this.one('Gather', [data, indices], data.dtype, [...indices.shape, ...data.shape.slice(1)], {
      axis: { int: 0 },
    });
  }
  gatherElements(data: Tensor, indices: Tensor, axis: number): Tensor {
    checkIndex('gatherElements', indices);
    if (indices.shape.length !== data.shape.length) {
      throw new InvalidArgumentError('gatherElements(): indices and data need the same rank.');
    }
    return this.one('GatherElements', [data, indices], data.dtype, indices.shape, {
      axis: { int: normAxis(axis, data.shape.length) },
    });
  }
  scatterNDAdd(data: Tensor, indices: Tensor, updates: Tensor): Tensor {
    checkIndex('scatterNDAdd', indices);
    return this.one('ScatterND', [data, indices, updates], data.dtype, data.shape, {
      reduction: { str: 'add' },
    });
  }
  scatterElementsAdd(data: Tensor, indices: Tensor, updates: Tensor, axis: number): Tensor {
    checkIndex('scatterElementsAdd', indices);
    return this.one('ScatterElements', [data, indices, updates], data.dtype, data.shape, {
      axis: { int: normAxis(axis, data.shape.length) },
      reduction: { str: 'add' },
    });
  }
  where(condition: Tensor, a: Tensor, b: Tensor): Tensor {
    if (condition.dtype !== 'bool') throw new InvalidArgumentError('where(): the condition must be bool.');
    checkSameType('Where', a, b);
    return this.one(
      'Where',
      [condition, a, b],
      a.dtype,
      broadcastShapes(condition.shape, broadcastShapes(a.shape, b.shape)),
    );
  }
  cast(x: Tensor, dtype: DType): Tensor {
    if (x.dtype === dtype) return x;
    const grad = isFloat(x.dtype) && isFloat(dtype);
    return this.one(
      'Cast',
      [x],
      dtype,
      x.shape,
      { to: { int: onnxCode(dtype) } },
      grad ? {} : { noGrad: true },
    );
  }
  identity(x: Tensor): Tensor {
    return this.one('Identity', [x], x.dtype, x.shape);
  }
  stopGradient(x: Tensor): Tensor {
    return this.one('Identity', [x], x.dtype, x.shape, {}, { noGrad: true });
  }
  zeros(shape: Shape, dtype: DType = this.float): Tensor {
    return this.one(
      'Expand',
      [this.scalar(0, dtype), this.int64s(shape)],
      dtype,
      shape,
      {},
      { noGrad: true },
    );
  }

  raw(
    op: string,
    inputs: readonly (Tensor | null)[],
    out: { dtype: DType; shape: Shape },
    attrs: Record<string, AttrValue> = {},
  ): Tensor {
    return this.one(op, inputs, out.dtype, out.shape, attrs, { noGrad: true });
  }

  custom(options: {
    readonly inputs: readonly Tensor[];
    readonly forward: () => readonly Tensor[];
    readonly vjp: VjpFn;
  }): Tensor[] {
    const outs = options.forward();
    const group: CustomGroup = { inputs: options.inputs, outputs: [], vjp: options.vjp };
    for (const o of outs) {
      group.outputs.push(
        this.one('Identity', [o], o.dtype, o.shape, {}, { diffInputs: options.inputs, group }),
      );
    }
    return group.outputs;
  }
}

function onnxCode(dtype: DType): number {
  return { float32: 1, int32: 6, int64: 7, bool: 9, float16: 10, float64: 11 }[dtype];
}

function checkSameType(op: string, a: Tensor, b: Tensor): void {
  if (a.dtype !== b.dtype) {
    throw new InvalidArgumentError(`${op}: element types differ (${a.dtype} vs ${b.dtype}).`);
  }
}

function checkIndex(op: string, indices: Tensor): void {
  if (indices.dtype !== 'int64' && indices.dtype !== 'int32') {
    throw new InvalidArgumentError(`${op}(): indices must be int64 or int32.`);
  }
}

function toTyped(data: ConstantData | readonly number[], dtype: DType): ConstantData {
  switch (dtype) {
    case 'float32':
      return data instanceof Float32Array ? data : Float32Array.from(data as ArrayLike<number>, Number);
    case 'float64':
      return data instanceof Float64Array ? data : Float64Array.from(data as ArrayLike<number>, Number);
    case 'int64':
      return data instanceof BigInt64Array
        ? data
        : BigInt64Array.from(data as ArrayLike<number>, (v) => BigInt(v));
    case 'int32':
      return data instanceof Int32Array ? data : Int32Array.from(data as ArrayLike<number>, Number);
    case 'bool':
      return data instanceof Uint8Array
        ? data
        : Uint8Array.from(data as ArrayLike<number>, (v) => (v ? 1 : 0));
    case 'float16':
      if (data instanceof Uint16Array) return data;
      throw new InvalidArgumentError('float16 constants must be given as raw Uint16Array bits.');
  }
}

export function createGraph(options: CreateGraphOptions = {}): Graph {
  return new GraphImpl(options.float ?? 'float32');
}
