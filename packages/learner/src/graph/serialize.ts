/** Serialises a recorded graph as an ONNX `ModelProto` (opset 18) with onnx-proto. */

import onnxProto from 'onnx-proto';
import type { ConstantData, Graph, GraphNode } from './graph';
import { ONNX_DTYPE, type Tensor } from './tensor';

const { onnx } = onnxProto;

export const OPSET = 18;

export interface SerializeOptions {
  /** Output names to keep (default: all); nodes no kept output needs are dropped. */
  readonly outputs?: readonly string[];
  /**
   * Symbolic names for dimensions of inputs/outputs, per value name and axis (for exported models
   * whose batch and sequence sizes vary).
   */
  readonly dimParams?: Readonly<Record<string, Readonly<Record<number, string>>>>;
  readonly graphName?: string;
}

function rawBytes(data: ConstantData): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

function valueInfo(t: Tensor, name: string, dims?: Readonly<Record<number, string>>) {
  return onnx.ValueInfoProto.create({
    name,
    type: onnx.TypeProto.create({
      tensorType: onnx.TypeProto.Tensor.create({
        elemType: ONNX_DTYPE[t.dtype],
        shape: onnx.TensorShapeProto.create({
          dim: t.shape.map((d, i) =>
            dims?.[i] !== undefined
              ? onnx.TensorShapeProto.Dimension.create({ dimParam: dims[i] })
              : d >= 0
                ? onnx.TensorShapeProto.Dimension.create({ dimValue: d })
                : onnx.TensorShapeProto.Dimension.create({ dimParam: `d${i}` }),
          ),
        }),
      }),
    }),
  });
}

function attribute(name: string, value: GraphNode['attrs'][string]) {
  const A = onnx.AttributeProto.AttributeType;
  if ('int' in value) return onnx.AttributeProto.create({ name, type: A.INT, i: value.int });
  if ('float' in value) return onnx.AttributeProto.create({ name, type: A.FLOAT, f: value.float });
  if ('ints' in value) return onnx.AttributeProto.create({ name, type: A.INTS, ints: [...value.ints] });
  if ('floats' in value)
    return onnx.AttributeProto.create({ name, type: A.FLOATS, floats: [...value.floats] });
  return onnx.AttributeProto.create({ name, type: A.STRING, s: new TextEncoder().encode(value.str) });
}

/** The nodes needed for `outputs`, in order. */
export function pruneNodes(g: Graph, outputs: readonly Tensor[]): GraphNode[] {
  const needed = new Set(outputs.map((t) => t.id));
  const keep: GraphNode[] = [];
  for (let i = g.nodes.length - 1; i >= 0; i--) {
    const node = g.nodes[i] as GraphNode;
    if (!node.outputs.some((o) => needed.has(o.id))) continue;
    keep.push(node);
    for (const t of node.inputs) if (t) needed.add(t.id);
  }
  return keep.reverse();
}

export function serializeGraph(g: Graph, options: SerializeOptions = {}): Uint8Array {
  const wanted = options.outputs;
  const outs = wanted === undefined ? g.outputs : g.outputs.filter((o) => wanted.includes(o.name));
  const nodes = pruneNodes(
    g,
    outs.map((o) => o.tensor),
  );
  const used = new Map<number, Tensor>();
  for (const n of nodes) for (const t of n.inputs) if (t) used.set(t.id, t);
  for (const o of outs) used.set(o.tensor.id, o.tensor);

  const protoNodes = nodes.map((n, i) =>
    onnx.NodeProto.create({
      name: `n${i}_${n.op}`,
      opType: n.op,
      input: n.inputs.map((t) => (t === null ? '' : t.name)),
      output: n.outputs.map((t) => t.name),
      attribute: Object.entries(n.attrs).map(([k, v]) => attribute(k, v)),
    }),
  );
  // Outputs whose value has another name (an input, a constant or an intermediate) get an Identity.
  const outputInfos = outs.map((o) => {
    if (o.tensor.name !== o.name) {
      protoNodes.push(
        onnx.NodeProto.create({
          name: `out_${o.name}`,
          opType: 'Identity',
          input: [o.tensor.name],
          output: [o.name],
        }),
      );
    }
    return valueInfo(o.tensor, o.name, options.dimParams?.[o.name]);
  });
  const initializer = [...g.constants.entries()]
    .filter(([id]) => used.has(id))
    .map(([id, data]) => {
      const t = used.get(id) as Tensor;
      return onnx.TensorProto.create({
        name: t.name,
        dataType: ONNX_DTYPE[t.dtype],
        dims: [...t.shape],
        rawData: rawBytes(data),
      });
    });

  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: '@mage-rl/learner',
    opsetImport: [onnx.OperatorSetIdProto.create({ domain: '', version: OPSET })],
    graph: onnx.GraphProto.create({
      name: options.graphName ?? 'graph',
      node: protoNodes,
      input: g.inputs.map((t) => valueInfo(t, t.name, options.dimParams?.[t.name])),
      output: outputInfos,
      initializer,
    }),
  });
  return onnx.ModelProto.encode(model).finish();
}
