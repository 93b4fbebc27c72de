import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointError, createRng } from '@mage-rl/core';
import { afterAll, describe, expect, it } from 'vitest';
import { serializeSafetensors } from '../checkpoint/safetensors';
import { createOnnxLearner } from '../learner/onnx-learner';
import { type Architecture, defineModelConfig } from '../model/config';
import { fillNormal, paramSpecs } from '../model/params';
import { toHfConfig } from './hf-config';
import { exportHfModel, importHfModel } from './hf-io';
import { loadHfTokenizer } from './hf-tokenizer';
import { tinyTokenizerFiles } from './test-fixtures';

const root = await mkdtemp(join(tmpdir(), 'mage-hf-'));
afterAll(() => rm(root, { recursive: true, force: true }));

const tiny = (architecture: Architecture) =>
  defineModelConfig({
    architecture,
    vocabSize: 260,
    hiddenSize: 32,
    numLayers: 2,
    numHeads: 4,
    numKvHeads: 2,
    headDim: 8,
    intermediateSize: 48,
    maxPositions: 128,
    tieWordEmbeddings: architecture !== 'llama',
    eosTokenId: 258,
  });

/** bf16 bits of x (round to nearest even). */
function bf16(x: number): number {
  const u = new Uint32Array(Float32Array.of(x).buffer)[0] as number;
  return ((u + 0x7fff + ((u >> 16) & 1)) >>> 16) & 0xffff;
}

/** A random checkpoint in the HF layout, written by hand (bf16 weights, no `model.` prefix quirks). */
async function writeHfCheckpoint(dir: string, architecture: Architecture): Promise<void> {
  const config = tiny(architecture);
  const rng = createRng(architecture);
  const header: Record<string, unknown> = {};
  const chunks: Uint8Array[] = [];
  let offset = 0;
  for (const s of paramSpecs(config)) {
    const n = s.shape.reduce((p, d) => p * d, 1);
    const v = new Float32Array(n);
    if (s.kind === 'norm') for (let i = 0; i < n; i++) v[i] = 1 + (rng.next() - 0.5) * 0.2;
    else fillNormal(rng.split(s.name), v, s.kind === 'bias' ? 0.1 : 0.3);
    const bytes = new Uint8Array(n * 2);
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < n; i++) view.setUint16(i * 2, bf16(v[i] as number), true);
    header[s.name] = { dtype: 'BF16', shape: s.shape, data_offsets: [offset, offset + bytes.length] };
    chunks.push(bytes);
    offset += bytes.length;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let p = 8 + json.length;
  for (const c of chunks) {
    out.set(c, p);
    p += c.length;
  }
  const { mkdir } = await import('node:fs/promises');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'model.safetensors'), out);
  await writeFile(join(dir, 'config.json'), JSON.stringify(toHfConfig(config)));
  for (const [name, text] of Object.entries(tinyTokenizerFiles())) await writeFile(join(dir, name), text);
}

describe('Hugging Face interop', () => {
  it('tokenises and renders chat templates offline, keeping verbatim tokens', async () => {
    const dir = join(root, 'tok');
    await writeHfCheckpoint(dir, 'llama');
    const tok = await loadHfTokenizer(dir);
    expect(tok.encode('hi!')).toEqual([104, 105, 33]);
    expect(tok.decode([104, 105, 258])).toBe('hi');
    expect(tok.eosTokenIds).toContain(258);
    const ids = tok.encodeChat([
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'not used', tokens: [1, 2, 3] },
    ]);
    expect(ids.slice(0, 3)).toEqual([257, ...tok.encode('us')]);
    expect(ids.join()).toContain([1, 2, 3].join());
    expect(tok.decode(ids)).not.toContain('not used');
    expect(ids.slice(-3)).toEqual([257, ...tok.encode('assistant\n')].slice(-3));
  });

  it('names a missing tokenizer.json or tokenizer_config.json instead of failing inside transformers.js', async () => {
    for (const name of ['tokenizer.json', 'tokenizer_config.json']) {
      const dir = join(root, `no-${name}`);
      await writeHfCheckpoint(dir, 'llama');
      await rm(join(dir, name));
      const error = await loadHfTokenizer(dir).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CheckpointError);
      expect((error as Error).message).toContain(`'${join(dir, name)}' is missing`);
    }
  });

  for (const arch of ['llama', 'qwen2', 'qwen3'] as const) {
    it(`${arch}: imports bf16 safetensors, exports for transformers.js, logits agree to 1e-4`, async () => {
      const src = join(root, `${arch}-src`);
      await writeHfCheckpoint(src, arch);
      const model = await importHfModel(src);
      expect(model.config.architecture).toBe(arch);
      const tokenizer = await loadHfTokenizer(src);
      const learner = await createOnnxLearner({
        config: model.config,
        tokenizer,
        weights: model.weights,
        runner: 'local',
      });
      const out = join(root, `${arch}-out`);
      await exportHfModel({
        dir: out,
        config: model.config,
        weights: learner.mergedWeights(),
        tokenizerFiles: tinyTokenizerFiles(),
      });

      const { AutoModelForCausalLM, env, Tensor } = await import('@huggingface/transformers');
      env.allowRemoteModels = false;
      const hf = await AutoModelForCausalLM.from_pretrained(out, { local_files_only: true });
      const ids = [
        [257, 117, 115, 10, 104, 105],
        [257, 10, 97, 98, 99, 100],
      ];
      const flat = BigInt64Array.from(ids.flat(), BigInt);
      const result = await hf({
        input_ids: new Tensor('int64', flat, [2, 6]),
        attention_mask: new Tensor('int64', new BigInt64Array(12).fill(1n), [2, 6]),
      });
      const logits = result.logits.data as Float32Array;
      const V = model.config.vocabSize;
      // Our training graph's log-probs of each next token vs log_softmax of transformers.js' logits.
      const ours = await learner.logprobs(
        ids.map((row) => ({ promptTokens: row.slice(0, 1), responseTokens: row.slice(1) })),
      );
      let maxDiff = 0;
      ids.forEach((row, b) => {
        for (let t = 0; t + 1 < row.length; t++) {
          const z = logits.subarray((b * 6 + t) * V, (b * 6 + t + 1) * V);
          let m = Number.NEGATIVE_INFINITY;
          for (const x of z) m = Math.max(m, x);
          let s = 0;
          for (const x of z) s += Math.exp(x - m);
          const lp = (z[row[t + 1] as number] as number) - m - Math.log(s);
          maxDiff = Math.max(maxDiff, Math.abs(lp - ((ours[b] as Float32Array)[t] as number)));
        }
      });
      expect(maxDiff).toBeLessThan(1e-4);

      // Greedy generation through transformers.js' KV cache equals ours.
      const gen = (await hf.generate({
        input_ids: new Tensor('int64', BigInt64Array.from(ids[0] as number[], BigInt), [1, 6]),
        attention_mask: new Tensor('int64', new BigInt64Array(6).fill(1n), [1, 6]),
        max_new_tokens: 8,
        do_sample: false,
      })) as { tolist(): bigint[][] };
      const theirs = (gen.tolist()[0] as bigint[]).slice(6).map(Number);
      expect(theirs.length).toBeGreaterThan(1);
      const { createGenerator } = await import('../sampling/generator');
      const { createLocalRunner } = await import('../runtime/runner');
      const runner = createLocalRunner();
      const feeds: Record<string, { data: Float32Array; dims: readonly number[] }> = {};
      for (const s of paramSpecs(model.config))
        feeds[s.name] = { data: model.weights.get(s.name) as Float32Array, dims: s.shape };
      await runner.setPersistent(feeds);
      const rows = await createGenerator({ config: model.config, runner }).generate({
        prompts: [ids[0] as number[]],
        seeds: [0],
        maxTokens: theirs.length,
        sampling: { temperature: 0, topK: 0, topP: 1 },
      });
      expect(rows[0]?.tokens).toEqual(theirs.slice(0, rows[0]?.tokens.length));
      await runner.dispose();

      // The exported directory imports again with identical weights.
      const again = await importHfModel(out);
      for (const [name, w] of model.weights)
        expect(Array.from(again.weights.get(name) as Float32Array)).toEqual(Array.from(w));
      await learner.dispose();
      await hf.dispose();
    });
  }

  it('rejects unsupported configs and missing weights with a CheckpointError', async () => {
    const dir = join(root, 'bad');
    await writeHfCheckpoint(dir, 'llama');
    await writeFile(
      join(dir, 'config.json'),
      JSON.stringify({ ...toHfConfig(tiny('llama')), model_type: 'gpt2' }),
    );
    await expect(importHfModel(dir)).rejects.toMatchObject({ name: 'CheckpointError' });
    await writeFile(
      join(dir, 'config.json'),
      JSON.stringify({ ...toHfConfig(tiny('llama')), num_hidden_layers: 3 }),
    );
    await expect(importHfModel(dir)).rejects.toMatchObject({ name: 'CheckpointError' });
    await writeFile(
      join(dir, 'model.safetensors'),
      serializeSafetensors(new Map([['x', { data: new Float32Array(1), shape: [1] }]])),
    );
    await expect(importHfModel(dir)).rejects.toMatchObject({ name: 'CheckpointError' });
  });
});
