/**
 * Writes a random model as a Hugging Face directory: `config.json`, `generation_config.json`, a
 * word-level tokenizer of `vocabSize` ids (mage-tiny's words grown with filler words: no real
 * tokenizer is available offline), weights in `model-0000k-of-0000n.safetensors` shards of at most
 * `shardBytes` and, when asked, `onnx/model.onnx` for transformers.js with its weights in
 * `onnx/model.onnx_data`. Sharding and external ONNX data are what a model above 2 GiB of float32
 * needs: Node reads no file above 2 GiB in one `readFile`, and protobuf (hence ONNX) messages stop at
 * 2 GiB.
 */

import { mkdir, open, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createRng } from '@mage-rl/core';
import {
  buildExportGraph,
  type ConstantData,
  exportDimParams,
  exportHfModel,
  initParams,
  type ModelConfig,
  paramSpecs,
  serializeGraph,
  serializeSafetensors,
  type TensorToWrite,
  wordLevelTokenizerFiles,
} from '@mage-rl/learner';
import { buildMageTinyTokenizer } from '@mage-rl/trainer/internals';
import { toBf16 } from './model';

export interface RandomModelOptions {
  readonly dir: string;
  readonly vocabSize: number;
  /** The model's config, given the tokenizer's special ids. */
  readonly configOf: (ids: { eos: number; bos: number }) => ModelConfig;
  /** Seed of the weights (normal, std 0.02; norms 1). */
  readonly seed?: number;
  /** Round the weights to bfloat16, as an imported bf16 checkpoint's are (default true). */
  readonly bf16?: boolean;
  /** Largest safetensors shard (default 1 GiB). */
  readonly shardBytes?: number;
  /** Also write `onnx/model.onnx` + `onnx/model.onnx_data` for transformers.js (default false). */
  readonly onnx?: boolean;
}

/** Writes the directory; returns the config it holds. */
export async function writeRandomModel(options: RandomModelOptions): Promise<ModelConfig> {
  const { dir, vocabSize } = options;
  const base = buildMageTinyTokenizer([]).vocabSize;
  const filler = Array.from({ length: vocabSize - base }, (_, i) => `zz${i}`).join(' ');
  const tokenizer = buildMageTinyTokenizer([filler]);
  if (tokenizer.vocabSize !== vocabSize) throw new Error(`tokenizer has ${tokenizer.vocabSize} ids`);
  const config = options.configOf({
    eos: tokenizer.eosTokenIds[0] as number,
    bos: tokenizer.encode('<bos>')[0] as number,
  });
  const weights = initParams(config, createRng(options.seed ?? 1));
  if (options.bf16 !== false) for (const w of weights.values()) toBf16(w);
  // Configs and tokenizer first (this replaces the directory), then the weights beside them.
  await exportHfModel({
    dir,
    config,
    weights,
    tokenizerFiles: wordLevelTokenizerFiles(tokenizer),
    files: { safetensors: false, onnx: false },
  });
  await writeShards(dir, config, weights, options.shardBytes ?? 2 ** 30);
  if (options.onnx) await writeExternalOnnx(join(dir, 'onnx'), config, weights);
  return config;
}

async function writeShards(
  dir: string,
  config: ModelConfig,
  weights: ReadonlyMap<string, Float32Array>,
  shardBytes: number,
): Promise<void> {
  const shards: Map<string, TensorToWrite>[] = [new Map()];
  let bytes = 0;
  for (const s of paramSpecs(config)) {
    const data = weights.get(s.name) as Float32Array;
    if (bytes > 0 && bytes + data.byteLength > shardBytes) {
      shards.push(new Map());
      bytes = 0;
    }
    (shards[shards.length - 1] as Map<string, TensorToWrite>).set(s.name, { data, shape: s.shape });
    bytes += data.byteLength;
  }
  const pad = (i: number) => String(i).padStart(5, '0');
  for (const [i, tensors] of shards.entries()) {
    const name = `model-${pad(i + 1)}-of-${pad(shards.length)}.safetensors`;
    await writeFile(join(dir, name), serializeSafetensors(tensors, { format: 'pt' }));
  }
}

/** The parts of onnx-proto's `ModelProto` this module patches. */
interface OnnxProto {
  onnx: {
    ModelProto: {
      decode(bytes: Uint8Array): {
        graph: {
          initializer: {
            name: string;
            rawData: Uint8Array;
            dataLocation: number;
            externalData: { key: string; value: string }[];
          }[];
        };
      };
      encode(model: unknown): { finish(): Uint8Array };
    };
  };
}

/**
 * The learner's export graph (transformers.js' KV-cache contract) with every initializer above 1 KiB
 * in `model.onnx_data`: serialised with those constants empty, then patched to point into the data
 * file (4 KiB-aligned offsets, so onnxruntime can map them).
 */
async function writeExternalOnnx(
  dir: string,
  config: ModelConfig,
  weights: ReadonlyMap<string, Float32Array>,
): Promise<void> {
  const graph = buildExportGraph(config, weights);
  const big = new Map<number, ConstantData>();
  const constants = new Map(graph.constants);
  for (const [id, data] of graph.constants) {
    if (data.byteLength > 1024) {
      big.set(id, data);
      constants.set(id, new Float32Array(0));
    }
  }
  const light = Object.create(graph, { constants: { value: constants } }) as typeof graph;
  const bytes = serializeGraph(light, { dimParams: exportDimParams(config), graphName: 'main_graph' });
  // onnx-proto is the learner's dependency, not the bench's.
  const require = createRequire(createRequire(import.meta.url).resolve('@mage-rl/learner/package.json'));
  const proto = require('onnx-proto') as OnnxProto;
  const model = proto.onnx.ModelProto.decode(bytes);
  // Constants carry no name of their own: the graph names them `t<id>`.
  const byName = new Map<string, Uint8Array>();
  for (const [id, data] of big)
    byName.set(`t${id}`, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const file = await open(join(dir, 'model.onnx_data'), 'w');
  let offset = 0;
  try {
    for (const init of model.graph.initializer) {
      if (init.rawData.length > 0) continue;
      const data = byName.get(init.name);
      if (data === undefined) throw new Error(`initializer ${init.name} is empty but no large constant`);
      offset = Math.ceil(offset / 4096) * 4096;
      await file.write(data, 0, data.length, offset);
      init.dataLocation = 1;
      init.externalData = [
        { key: 'location', value: 'model.onnx_data' },
        { key: 'offset', value: String(offset) },
        { key: 'length', value: String(data.length) },
      ];
      offset += data.length;
    }
  } finally {
    await file.close();
  }
  await writeFile(join(dir, 'model.onnx'), proto.onnx.ModelProto.encode(model).finish());
}
