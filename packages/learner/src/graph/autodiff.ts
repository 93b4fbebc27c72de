/**
 * Reverse-mode automatic differentiation over a recorded graph: one vector-Jacobian-product rule per op.
 * The backward nodes are appended to the same graph, so one ONNX model holds forward and backward.
 */

import { InvalidArgumentError } from '@mage-rl/core';
import { zip } from '../util/arrays';
import type { Graph, GraphNode } from './graph';
import { dimAt, padPairs, type Shape, sameShape, sizeOf, type Tensor } from './tensor';

type Grad = Tensor | null;

/** A VJP rule: cotangents of the outputs (null = zero) to cotangents of the inputs (null = not needed). */
export type VjpRule = (
  g: Graph,
  node: GraphNode,
  gradOutputs: readonly Grad[],
  needs: readonly boolean[],
) => Grad[];

export interface GradientsOptions {
  /** Cotangent of `loss` (default: 1, which needs a one-element `loss`). */
  readonly seed?: Tensor;
}

function constValues(g: Graph, t: Tensor | null | undefined): number[] {
  const data = t === null || t === undefined ? undefined : g.constants.get(t.id);
  if (data === undefined) throw new InvalidArgumentError('A VJP rule needs a constant operand.');
  return Array.from(data as ArrayLike<number | bigint>, Number);
}

/** The single value of a constant operand (a Slice bound, a Pow exponent). */
function constScalar(g: Graph, t: Tensor | null | undefined): number {
  const [value, ...rest] = constValues(g, t);
  if (value === undefined || rest.length > 0) {
    throw new InvalidArgumentError('A VJP rule needs a one-element constant operand.');
  }
  return value;
}

function attrInt(node: GraphNode, name: string, fallback: number): number {
  const a = node.attrs[name];
  return a !== undefined && 'int' in a ? a.int : fallback;
}

/** Sums a broadcast cotangent back to `shape`. */
export function unbroadcast(g: Graph, t: Tensor, shape: Shape): Tensor {
  if (sameShape(t.shape, shape)) return t;
  const extra = t.shape.length - shape.length;
  const axes: number[] = [];
  for (let i = 0; i < t.shape.length; i++) {
    if (i < extra) axes.push(i);
    else if (shape[i - extra] === 1 && t.shape[i] !== 1) axes.push(i);
  }
  const reduced = axes.length > 0 ? g.reduceSum(t, axes, true) : t;
  return g.reshape(reduced, shape);
}

const input = (node: GraphNode, i: number): Tensor => {
  const t = node.inputs[i];
  if (t === null || t === undefined) throw new InvalidArgumentError(`${node.op}: missing input ${i}.`);
  return t;
};
const output = (node: GraphNode, i = 0): Tensor => node.outputs[i] as Tensor;

function matmulGrads(g: Graph, a: Tensor, b: Tensor, gy: Tensor, needs: readonly boolean[]): Grad[] {
  const ra = a.shape.length;
  const rb = b.shape.length;
  if (ra === 2 && rb === 2) {
    return [
      needs[0] ? g.gemm(gy, b, { transB: true }) : null,
      needs[1] ? g.gemm(a, gy, { transA: true }) : null,
    ];
  }
  const swap = (r: number) => [...Array(r - 2).keys(), r - 1, r - 2];
  let da: Grad = null;
  let db: Grad = null;
  if (needs[0]) da = unbroadcast(g, g.matmul(gy, g.transpose(b, swap(rb))), a.shape);
  if (needs[1]) {
    if (rb === 2) {
      const k = dimAt(a.shape, -1);
      const n = dimAt(b.shape, 1);
      db = g.gemm(g.reshape(a, [-1, k]), g.reshape(gy, [-1, n]), { transA: true });
    } else {
      db = unbroadcast(g, g.matmul(g.transpose(a, swap(ra)), gy), b.shape);
    }
  }
  return [da, db];
}

function reduceGrad(g: Graph, node: GraphNode, gy: Tensor, scale: number): Tensor {
  const x = input(node, 0);
  const axes = constValues(g, node.inputs[1]);
  const keep = x.shape.map((d, i) => (axes.includes(i) ? 1 : d));
  let t = g.reshape(gy, keep);
  if (scale !== 1) t = g.mul(t, g.scalar(scale, t.dtype));
  return g.expand(t, x.shape);
}

export const VJP_RULES: Readonly<Record<string, VjpRule>> = {
  Identity: (_g, _n, [gy]) => [gy ?? null],
  Add: (g, n, [gy], needs) => [
    needs[0] ? unbroadcast(g, gy as Tensor, input(n, 0).shape) : null,
    needs[1] ? unbroadcast(g, gy as Tensor, input(n, 1).shape) : null,
  ],
  Sub: (g, n, [gy], needs) => [
    needs[0] ? unbroadcast(g, gy as Tensor, input(n, 0).shape) : null,
    needs[1] ? unbroadcast(g, g.neg(gy as Tensor), input(n, 1).shape) : null,
  ],
  Mul: (g, n, [gy], needs) => [
    needs[0] ? unbroadcast(g, g.mul(gy as Tensor, input(n, 1)), input(n, 0).shape) : null,
    needs[1] ? unbroadcast(g, g.mul(gy as Tensor, input(n, 0)), input(n, 1).shape) : null,
  ],
  Div: (g, n, [gy], needs) => [
    needs[0] ? unbroadcast(g, g.div(gy as Tensor, input(n, 1)), input(n, 0).shape) : null,
    needs[1]
      ? unbroadcast(g, g.neg(g.div(g.mul(gy as Tensor, output(n)), input(n, 1))), input(n, 1).shape)
      : null,
  ],
  Sum: (g, n, [gy], needs) =>
    n.inputs.map((x, i) => (needs[i] && x ? unbroadcast(g, gy as Tensor, x.shape) : null)),
  Neg: (g, _n, [gy]) => [g.neg(gy as Tensor)],
  Exp: (g, n, [gy]) => [g.mul(gy as Tensor, output(n))],
  Log: (g, n, [gy]) => [g.div(gy as Tensor, input(n, 0))],
  Sqrt: (g, n, [gy]) => [g.div(gy as Tensor, g.mul(output(n), g.scalar(2, output(n).dtype)))],
  Reciprocal: (g, n, [gy]) => [g.neg(g.mul(gy as Tensor, g.mul(output(n), output(n))))],
  Sigmoid: (g, n, [gy]) => {
    const y = output(n);
    return [g.mul(gy as Tensor, g.mul(y, g.sub(g.scalar(1, y.dtype), y)))];
  },
  Tanh: (g, n, [gy]) => {
    const y = output(n);
    return [g.mul(gy as Tensor, g.sub(g.scalar(1, y.dtype), g.mul(y, y)))];
  },
  Pow: (g, n, [gy]) => {
    const x = input(n, 0);
    const p = constScalar(g, n.inputs[1]);
    const d = p === 2 ? g.mul(x, g.scalar(2, x.dtype)) : g.mul(g.pow(x, p - 1), g.scalar(p, x.dtype));
    return [g.mul(gy as Tensor, d), null];
  },
  MatMul: (g, n, [gy], needs) => matmulGrads(g, input(n, 0), input(n, 1), gy as Tensor, needs),
  Gemm: (g, n, [gy], needs) => {
    const a = input(n, 0);
    const b = input(n, 1);
    const dy = gy as Tensor;
    const ta = attrInt(n, 'transA', 0) === 1;
    const tb = attrInt(n, 'transB', 0) === 1;
    let da: Grad = null;
    let db: Grad = null;
    if (needs[0]) {
      da = ta ? g.gemm(b, dy, { transA: tb, transB: true }) : g.gemm(dy, b, { transB: !tb });
    }
    if (needs[1]) {
      db = tb ? g.gemm(dy, a, { transA: true, transB: ta }) : g.gemm(a, dy, { transA: !ta });
    }
    const bias = n.inputs[2];
    const dc = bias && needs[2] ? unbroadcast(g, dy, bias.shape) : null;
    return [da, db, dc];
  },
  Reshape: (g, n, [gy]) => [g.reshape(gy as Tensor, input(n, 0).shape), null],
  Transpose: (g, n, [gy]) => {
    const perm = (n.attrs.perm as { ints: readonly number[] }).ints;
    const inv = new Array<number>(perm.length);
    perm.forEach((p, i) => {
      inv[p] = i;
    });
    return [g.transpose(gy as Tensor, inv)];
  },
  Slice: (g, n, [gy]) => {
    const x = input(n, 0);
    const start = constScalar(g, n.inputs[1]);
    const end = constScalar(g, n.inputs[2]);
    const axis = constScalar(g, n.inputs[3]);
    const r = x.shape.length;
    const pads = new Array<number>(2 * r).fill(0);
    pads[axis] = start;
    pads[axis + r] = dimAt(x.shape, axis) - end;
    return [g.pad(gy as Tensor, pads), null, null, null];
  },
  Pad: (g, n, [gy]) => {
    const x = input(n, 0);
    let t = gy as Tensor;
    for (const [i, [size, [begin, end]]] of zip(x.shape, padPairs(constValues(g, n.inputs[1]))).entries()) {
      if (begin !== 0 || end !== 0) t = g.slice(t, i, begin, begin + size);
    }
    return [t, null];
  },
  Concat: (g, n, [gy], needs) => {
    const axis = attrInt(n, 'axis', 0);
    let offset = 0;
    return n.inputs.map((_, i) => {
      const size = dimAt(input(n, i).shape, axis);
      const start = offset;
      offset += size;
      return needs[i] ? g.slice(gy as Tensor, axis, start, start + size) : null;
    });
  },
  Expand: (g, n, [gy]) => [unbroadcast(g, gy as Tensor, input(n, 0).shape), null],
  ReduceSum: (g, n, [gy]) => [reduceGrad(g, n, gy as Tensor, 1), null],
  ReduceMean: (g, n, [gy]) => {
    const x = input(n, 0);
    const axes = constValues(g, n.inputs[1]);
    const count = axes.reduce((p, a) => p * dimAt(x.shape, a), 1);
    return [reduceGrad(g, n, gy as Tensor, 1 / count), null];
  },
  Softmax: (g, n, [gy]) => {
    const y = output(n);
    const axis = attrInt(n, 'axis', -1);
    const gyy = g.mul(gy as Tensor, y);
    return [g.sub(gyy, g.mul(y, g.reduceSum(gyy, [axis], true)))];
  },
  LogSoftmax: (g, n, [gy]) => {
    const y = output(n);
    const axis = attrInt(n, 'axis', -1);
    return [g.sub(gy as Tensor, g.mul(g.exp(y), g.reduceSum(gy as Tensor, [axis], true)))];
  },
  // ScatterElements, not ScatterND: onnxruntime's CPU ScatterND with reduction=add updates rows in
  // parallel and loses updates when an index repeats (a token id appearing twice in a batch).
  Gather: (g, n, [gy]) => {
    const data = input(n, 0);
    const idx = input(n, 1);
    const rows = sizeOf(idx.shape);
    const rest = data.shape.slice(1);
    const ones = rest.map(() => 1);
    const idxFull = g.expand(g.reshape(idx, [rows, ...ones]), [rows, ...rest]);
    const upd = g.reshape(gy as Tensor, [rows, ...rest]);
    return [g.scatterElementsAdd(g.zeros(data.shape, data.dtype), idxFull, upd, 0), null];
  },
  GatherElements: (g, n, [gy]) => {
    const data = input(n, 0);
    const axis = attrInt(n, 'axis', 0);
    return [g.scatterElementsAdd(g.zeros(data.shape, data.dtype), input(n, 1), gy as Tensor, axis), null];
  },
  ScatterND: (g, n, [gy], needs) => {
    const idx = input(n, 1);
    if (needs[2] && idx.shape[idx.shape.length - 1] !== 1) {
      throw new InvalidArgumentError('ScatterND VJP supports indices with a last dimension of 1 only.');
    }
    return [
      needs[0] ? (gy as Tensor) : null,
      null,
      needs[2] ? g.gather(gy as Tensor, g.reshape(idx, idx.shape.slice(0, -1))) : null,
    ];
  },
  ScatterElements: (g, n, [gy], needs) => [
    needs[0] ? (gy as Tensor) : null,
    null,
    needs[2] ? g.gatherElements(gy as Tensor, input(n, 1), attrInt(n, 'axis', 0)) : null,
  ],
  Where: (g, n, [gy], needs) => {
    const c = input(n, 0);
    const dy = gy as Tensor;
    const zero = g.scalar(0, dy.dtype);
    return [
      null,
      needs[1] ? unbroadcast(g, g.where(c, dy, zero), input(n, 1).shape) : null,
      needs[2] ? unbroadcast(g, g.where(c, zero, dy), input(n, 2).shape) : null,
    ];
  },
  Cast: (g, n, [gy]) => [g.cast(gy as Tensor, input(n, 0).dtype)],
};

/**
 * Appends the backward pass of `loss` with respect to `wrt` to the graph and returns the gradients
 * (zeros for tensors `loss` does not depend on).
 */
export function gradients(
  g: Graph,
  loss: Tensor,
  wrt: readonly Tensor[],
  options: GradientsOptions = {},
): Tensor[] {
  const nodes = g.nodes.slice();
  const diffIn = (node: GraphNode): readonly (Tensor | null)[] => node.diffInputs ?? node.inputs;

  const requires = new Set<number>(wrt.map((t) => t.id));
  for (const node of nodes) {
    if (node.noGrad) continue;
    if (diffIn(node).some((t) => t !== null && requires.has(t.id)))
      for (const o of node.outputs) requires.add(o.id);
  }
  const needed = new Set<number>([loss.id]);
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i] as GraphNode;
    if (node.outputs.some((o) => needed.has(o.id))) for (const t of diffIn(node)) if (t) needed.add(t.id);
  }

  let seed = options.seed;
  if (seed === undefined) {
    if (sizeOf(loss.shape) !== 1)
      throw new InvalidArgumentError('gradients(): a non-scalar loss needs a seed.');
    seed = g.constant([1], loss.shape, loss.dtype);
  }
  const acc = new Map<number, Tensor[]>([[loss.id, [seed]]]);
  const total = (t: Tensor): Grad => {
    const parts = acc.get(t.id);
    if (parts === undefined || parts.length === 0) return null;
    const s = parts.length === 1 ? (parts[0] as Tensor) : g.sum(parts);
    acc.set(t.id, [s]);
    return s;
  };
  const done = new Set<object>();

  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i] as GraphNode;
    if (node.noGrad || !node.outputs.some((o) => requires.has(o.id) && acc.has(o.id))) continue;
    let ins: readonly (Tensor | null)[];
    let outs: Grad[];
    if (node.group !== undefined) {
      if (done.has(node.group)) continue;
      done.add(node.group);
      ins = node.group.inputs;
      const gOuts = node.group.outputs.map(total);
      outs = [...node.group.vjp(g, gOuts)];
    } else {
      const rule = VJP_RULES[node.op];
      if (rule === undefined) throw new InvalidArgumentError(`No VJP rule for op '${node.op}'.`);
      ins = node.inputs;
      const needs = ins.map((t) => t !== null && requires.has(t.id) && needed.has(t.id));
      outs = rule(g, node, node.outputs.map(total), needs);
    }
    ins.forEach((t, j) => {
      const d = outs[j];
      if (t === null || d === null || d === undefined || !requires.has(t.id) || !needed.has(t.id)) return;
      if (!sameShape(d.shape, t.shape)) {
        throw new InvalidArgumentError(
          `VJP of ${node.op} produced shape [${d.shape.join(', ')}] for an input of shape [${t.shape.join(', ')}].`,
        );
      }
      const list = acc.get(t.id);
      if (list === undefined) acc.set(t.id, [d]);
      else list.push(d);
    });
  }
  return wrt.map((t) => total(t) ?? g.zeros(t.shape, t.dtype));
}
