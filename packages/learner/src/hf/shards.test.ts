import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRng } from '@mage-rl/core';
import { useTempDir } from '@mage-rl/core/testing/vitest';
import { describe, expect, it } from 'vitest';
import { bf16FromFloat32Bits } from '../checkpoint/float-formats';
import { readSafetensorsFile, serializeSafetensors } from '../checkpoint/safetensors';
import { defineModelConfig } from '../model/config';
import { fillNormal, paramSpecs } from '../model/params';
import { exportHfModel, importHfModel } from './hf-io';
import { parseByteSize, planShards, SAFETENSORS_INDEX_FILE } from './shards';

const config = defineModelConfig({
  architecture: 'qwen3',
  vocabSize: 260,
  hiddenSize: 32,
  numLayers: 3,
  numHeads: 4,
  numKvHeads: 2,
  headDim: 8,
  intermediateSize: 48,
  maxPositions: 128,
  tieWordEmbeddings: true,
  eosTokenId: 258,
});

function randomWeights(): Map<string, Float32Array> {
  const rng = createRng('shards');
  const weights = new Map<string, Float32Array>();
  for (const s of paramSpecs(config)) {
    const w = new Float32Array(s.shape.reduce((p, d) => p * d, 1));
    fillNormal(rng.split(s.name), w, 0.3);
    weights.set(s.name, w);
  }
  return weights;
}

const bytesOf = (weights: ReadonlyMap<string, Float32Array>, size: number) =>
  [...weights.values()].reduce((p, w) => p + w.length * size, 0);

describe('sharded safetensors', () => {
  const tmp = useTempDir('mage-shards-');

  it('splits as huggingface_hub does: a new shard when the next tensor would not fit, an oversized tensor alone', () => {
    const t = (name: string, bytes: number) => ({ name, bytes });
    expect([...planShards([t('a', 4), t('b', 4), t('c', 4)], 8).shards.values()]).toEqual([
      ['a', 'b'],
      ['c'],
    ]);
    // The oversized tensor's shard comes first; the shard being filled goes on after it.
    const plan = planShards([t('a', 3), t('big', 10), t('b', 3), t('c', 3)], 8);
    expect([...plan.shards]).toEqual([
      ['model-00001-of-00003.safetensors', ['big']],
      ['model-00002-of-00003.safetensors', ['a', 'b']],
      ['model-00003-of-00003.safetensors', ['c']],
    ]);
    expect(plan.index).toEqual({
      metadata: { total_size: 19 },
      weight_map: {
        a: 'model-00002-of-00003.safetensors',
        b: 'model-00002-of-00003.safetensors',
        big: 'model-00001-of-00003.safetensors',
        c: 'model-00003-of-00003.safetensors',
      },
    });
    expect(Object.keys(plan.index?.weight_map ?? {})).toEqual(['a', 'b', 'big', 'c']);
    const one = planShards([t('a', 4), t('b', 4)], 8);
    expect([...one.shards]).toEqual([['model.safetensors', ['a', 'b']]]);
    expect(one.index).toBeUndefined();
  });

  it('exports shards with an index in Hugging Face format and imports them back to identical weights', async () => {
    const weights = randomWeights();
    const total = bytesOf(weights, 4);
    const dir = join(tmp.path, 'sharded');
    // Room for a few layers per shard; the embedding (260 × 32 × 4 = 33,280 bytes) fits alone.
    const { files } = await exportHfModel({
      dir,
      config,
      weights,
      files: { onnx: false },
      safetensors: { maxShardBytes: 40_000, maxChunkBytes: 1000 },
    });
    const shardFiles = (await readdir(dir)).filter((f) => f.endsWith('.safetensors')).sort();
    expect(shardFiles.length).toBeGreaterThan(2);
    shardFiles.forEach((f, i) => {
      expect(f).toBe(
        `model-${String(i + 1).padStart(5, '0')}-of-${String(shardFiles.length).padStart(5, '0')}.safetensors`,
      );
    });
    expect(files).toEqual(['config.json', 'generation_config.json', ...shardFiles, SAFETENSORS_INDEX_FILE]);
    const text = await readFile(join(dir, SAFETENSORS_INDEX_FILE), 'utf8');
    const index = JSON.parse(text) as {
      metadata: { total_size: number };
      weight_map: Record<string, string>;
    };
    expect(Object.keys(index)).toEqual(['metadata', 'weight_map']);
    expect(index.metadata).toEqual({ total_size: total });
    expect(text).toBe(`${JSON.stringify(index, null, 2)}\n`);
    const names = Object.keys(index.weight_map);
    expect(names).toEqual([...weights.keys()].sort());
    // Every shard holds exactly the tensors the index gives it, within the size limit.
    for (const f of shardFiles) {
      const file = await readSafetensorsFile(join(dir, f));
      expect(file.metadata).toEqual({ format: 'pt' });
      expect([...file.tensors.keys()].sort()).toEqual(names.filter((n) => index.weight_map[n] === f));
      const bytes = [...file.tensors.values()].reduce((p, e) => p + e.bytes.length, 0);
      expect(bytes).toBeLessThanOrEqual(40_000);
    }
    for (const maxChunkBytes of [undefined, 12]) {
      const back = await importHfModel(dir, maxChunkBytes === undefined ? {} : { maxChunkBytes });
      expect([...back.weights.keys()]).toEqual([...weights.keys()]);
      for (const [name, w] of weights) expect(back.weights.get(name)).toEqual(w);
    }
  });

  it('writes one model.safetensors and no index when the weights fit in one shard (the default, 5 GB)', async () => {
    const weights = randomWeights();
    const dir = join(tmp.path, 'single');
    const { files } = await exportHfModel({ dir, config, weights, files: { onnx: false } });
    expect(files).toEqual(['config.json', 'generation_config.json', 'model.safetensors']);
    expect((await readdir(dir)).sort()).toEqual([
      'config.json',
      'generation_config.json',
      'model.safetensors',
    ]);
    const back = await importHfModel(dir);
    for (const [name, w] of weights) expect(back.weights.get(name)).toEqual(w);
  });

  it('exports bf16 shards (rounded to nearest even, half the bytes) that import as the rounded weights', async () => {
    const weights = randomWeights();
    const dir = join(tmp.path, 'bf16');
    await exportHfModel({
      dir,
      config,
      weights,
      files: { onnx: false },
      safetensors: { maxShardBytes: 20_000, dtype: 'BF16', maxChunkBytes: 64 },
    });
    const index = JSON.parse(await readFile(join(dir, SAFETENSORS_INDEX_FILE), 'utf8'));
    expect(index.metadata.total_size).toBe(bytesOf(weights, 2));
    const back = await importHfModel(dir, { maxChunkBytes: 10 });
    for (const [name, w] of weights) {
      const rounded = new Float32Array(
        new Uint32Array(w.buffer).map((b) => bf16FromFloat32Bits(b) << 16).buffer,
      );
      expect(back.weights.get(name)).toEqual(rounded);
    }
  });

  it('reads only what the index names, each tensor from its own file, and refuses a broken index', async () => {
    const weights = randomWeights();
    const dir = join(tmp.path, 'index-checks');
    await exportHfModel({
      dir,
      config,
      weights,
      files: { onnx: false },
      safetensors: { maxShardBytes: 40_000 },
    });
    const indexPath = join(dir, SAFETENSORS_INDEX_FILE);
    const index = JSON.parse(await readFile(indexPath, 'utf8'));
    // A stray file beside the shards (a leftover of another export) is not read.
    await writeFile(
      join(dir, 'stray.safetensors'),
      serializeSafetensors(
        new Map([['model.norm.weight', { data: new Float32Array(32).fill(9), shape: [32] }]]),
      ),
    );
    expect((await importHfModel(dir)).weights.get('model.norm.weight')).toEqual(
      weights.get('model.norm.weight'),
    );
    await rm(join(dir, 'stray.safetensors'));

    const broken = async (weightMap: Record<string, string>, message: RegExp) => {
      await writeFile(indexPath, JSON.stringify({ ...index, weight_map: weightMap }));
      await expect(importHfModel(dir)).rejects.toMatchObject({
        name: 'CheckpointError',
        message: expect.stringMatching(message),
      });
    };
    const [first, second] = [...new Set(Object.values(index.weight_map as Record<string, string>))].sort();
    const moved = {
      ...index.weight_map,
      'model.norm.weight': first === index.weight_map['model.norm.weight'] ? second : first,
    };
    await broken(moved, /puts 'model\.norm\.weight' in model-0000\d-of-0000\d\.safetensors, which lacks it/);
    await broken(
      { ...index.weight_map, 'model.norm.weight': '../model.safetensors' },
      /not a \.safetensors file in the same directory/,
    );
    await broken(
      { ...index.weight_map, 'model.norm.weight': 'model-00009-of-00009.safetensors' },
      /Cannot read .*model-00009-of-00009\.safetensors/,
    );
    await writeFile(indexPath, '{"weight_map": 3}');
    await expect(importHfModel(dir)).rejects.toMatchObject({
      name: 'CheckpointError',
      message: expect.stringMatching(/no weight_map object/),
    });
  });

  it('parses sizes as Hugging Face writes them', () => {
    expect(parseByteSize('5GB')).toBe(5e9);
    expect(parseByteSize('2GiB')).toBe(2 ** 31);
    expect(parseByteSize('500mb')).toBe(5e8);
    expect(parseByteSize('1.5KB')).toBe(1500);
    expect(parseByteSize('123456')).toBe(123456);
    for (const bad of ['', '0', '-1GB', '5XB', 'GB'])
      expect(() => parseByteSize(bad, '--max-shard-size')).toThrow(
        /--max-shard-size: expected a positive size/,
      );
  });
});
