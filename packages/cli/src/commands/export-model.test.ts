import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { CHECKPOINT_STATE_FORMAT, checkpointName, createRng } from '@mage-rl/core';
import type { ExportModelResult } from '@mage-rl/learner';
import {
  createMageTiny,
  createOnnxLearner,
  defineModelConfig,
  exportHfModel,
  fillNormal,
  importHfModel,
  importPeftAdapter,
  loadModel,
  type OnnxLearner,
  saveMageTiny,
  wordLevelTokenizerFiles,
} from '@mage-rl/learner';
import { buildMageTinyTokenizer } from '@mage-rl/trainer/internals';
import { describe, expect, it } from 'vitest';
import { runCaptured, runJson, useTempDir } from '../testing/cli.test-helper';

const tokenizer = buildMageTinyTokenizer(['board 1 2 3 <action>(1, 2)</action> pass bet fold call']);
const rows = [
  {
    promptTokens: tokenizer.encodeChat([{ role: 'user', content: 'board 1 2 3' }]),
    responseTokens: tokenizer.encode('<action>(1, 2)</action>'),
  },
  {
    promptTokens: tokenizer.encodeChat([{ role: 'user', content: 'pass bet' }]),
    responseTokens: tokenizer.encode('fold call 3'),
  },
];
const logprobsOf = async (learner: OnnxLearner) => (await learner.logprobs(rows)).map((r) => Array.from(r));

/** A Qwen3-shaped model (GQA, q/k norms, tied embeddings) with random weights, in a Hugging Face directory. */
async function writeQwen3(dir: string): Promise<void> {
  const config = defineModelConfig({
    architecture: 'qwen3',
    vocabSize: tokenizer.vocabSize + 3,
    hiddenSize: 32,
    numLayers: 2,
    numHeads: 4,
    numKvHeads: 2,
    headDim: 8,
    intermediateSize: 48,
    maxPositions: 128,
    tieWordEmbeddings: true,
    eosTokenId: tokenizer.eosTokenIds[0] as number,
  });
  const learner = await createOnnxLearner({ config, tokenizer, seed: 'qwen3', runner: 'local' });
  await exportHfModel({
    dir,
    config,
    weights: learner.weights,
    tokenizerFiles: wordLevelTokenizerFiles(tokenizer),
    files: { onnx: false },
  });
  await learner.dispose();
}

/** A run directory whose latest checkpoint holds `learner` (LoRA adapters included) over `warmStartDir`. */
async function writeRun(dir: string, warmStartDir: string, learner: OnnxLearner): Promise<void> {
  const ck = join(dir, 'checkpoints', checkpointName(0));
  await learner.save(ck);
  await writeFile(
    join(ck, 'state.json'),
    JSON.stringify({
      format: CHECKPOINT_STATE_FORMAT,
      iteration: 0,
      nextIteration: 1,
      seed: 0,
      learnerId: learner.id,
      metricsLines: 0,
      memory: null,
    }),
  );
  await writeFile(
    join(dir, 'config.json'),
    JSON.stringify({ format: 'mage-rl/run-config@1', extra: { warmStartDir } }),
  );
}

describe('mage export', () => {
  const tmp = useTempDir('mage-export-');

  it('mage-tiny --format hf: the directory loads back with identical logits and the chat template', async () => {
    const original = await createMageTiny(tokenizer, { seed: 5, runner: 'local' });
    const src = join(tmp.path, 'tiny');
    await saveMageTiny(src, original, tokenizer, { note: 'test' });
    const out = join(tmp.path, 'tiny-hf');
    const result = await runJson<ExportModelResult>(['export', src, '--format', 'hf', '--out', out]);
    expect(result.files).toEqual(
      expect.arrayContaining([
        'config.json',
        'generation_config.json',
        'model.safetensors',
        'tokenizer.json',
      ]),
    );
    const back = await loadModel(out, { runner: 'local' });
    expect(await logprobsOf(back)).toEqual(await logprobsOf(original));
    expect(back.tokenizer.encodeChat([{ role: 'user', content: 'board 1 2 3' }])).toEqual(
      rows[0]?.promptTokens,
    );
    const tokConfig = JSON.parse(await readFile(join(out, 'tokenizer_config.json'), 'utf8'));
    expect(tokConfig.chat_template).toContain('add_generation_prompt');
    const gen = JSON.parse(await readFile(join(out, 'generation_config.json'), 'utf8'));
    expect(gen.eos_token_id).toBe(original.config.eosTokenId);
    await back.dispose();
    await original.dispose();
  });

  it('mage-tiny --format onnx: transformers.js greedy generation equals ours token for token', async () => {
    const original = await createMageTiny(tokenizer, { seed: 6, runner: 'local' });
    const src = join(tmp.path, 'tiny-onnx-src');
    await saveMageTiny(src, original, tokenizer, { note: 'test' });
    const out = join(tmp.path, 'tiny-onnx');
    await runJson(['export', src, '--format', 'onnx', '--out', out]);
    const [ours] = await original.policy.generate(
      [{ messages: [{ role: 'user', content: 'board 1 2 3' }], phase: 'play', seed: 0 }],
      { temperature: 0, maxTokens: 12 },
    );
    const { AutoModelForCausalLM, env, Tensor } = await import('@huggingface/transformers');
    env.allowRemoteModels = false;
    const hf = await AutoModelForCausalLM.from_pretrained(out, { local_files_only: true });
    const prompt = ours?.promptTokens ?? [];
    const gen = (await hf.generate({
      input_ids: new Tensor('int64', BigInt64Array.from(prompt, BigInt), [1, prompt.length]),
      attention_mask: new Tensor('int64', new BigInt64Array(prompt.length).fill(1n), [1, prompt.length]),
      max_new_tokens: 12,
      do_sample: false,
    })) as { tolist(): bigint[][] };
    const theirs = (gen.tolist()[0] as bigint[]).slice(prompt.length).map(Number);
    expect(ours?.tokens.length).toBeGreaterThan(0);
    expect(theirs.slice(0, ours?.tokens.length)).toEqual(ours?.tokens);
    await hf.dispose();
    await original.dispose();
  });

  it('a Qwen3-shaped LoRA run: merged hf export and the PEFT adapter both reproduce its logits', async () => {
    const base = join(tmp.path, 'qwen3');
    await writeQwen3(base);
    const trained = await loadModel(base, { runner: 'local', lora: { rank: 4, alpha: 8 } });
    // Stand-in for training: non-zero adapters, saved in a run's checkpoint.
    const rng = createRng('adapters');
    for (const [name, a] of trained.adapters) fillNormal(rng.split(name), a, 0.2);
    const run = join(tmp.path, 'run');
    await writeRun(run, base, trained);
    await trained.load(join(run, 'checkpoints', checkpointName(0)));
    const expected = await logprobsOf(trained);

    const merged = join(tmp.path, 'run-hf');
    await runJson(['export', run, '--out', merged]);
    const back = await loadModel(merged, { runner: 'local' });
    expect(back.adapters.size).toBe(0);
    const got = await logprobsOf(back);
    got.forEach((row, i) => {
      expect(row).toEqual((expected[i] as number[]).map((x) => expect.closeTo(x, 4)));
    });
    // Merging changed the weights: the base alone scores differently.
    const baseOnly = await loadModel(base, { runner: 'local' });
    expect(await logprobsOf(baseOnly)).not.toEqual(got);

    const adapterDir = join(tmp.path, 'run-adapter');
    const r = await runJson<ExportModelResult>(['export', run, '--adapter', '--out', adapterDir]);
    expect(r.format).toBe('peft');
    // Given as relative paths, every path printed is absolute (no mix of the two).
    const rel = await runJson<ExportModelResult>([
      'export',
      relative(process.cwd(), run),
      '--adapter',
      '--out',
      relative(process.cwd(), join(tmp.path, 'run-adapter-2')),
    ]);
    expect([rel.out, rel.modelDir, rel.checkpointDir ?? '']).toEqual([
      join(tmp.path, 'run-adapter-2'),
      base,
      join(run, 'checkpoints', checkpointName(0)),
    ]);
    const peft = await importPeftAdapter(adapterDir, back.config);
    expect(peft.lora).toMatchObject({ rank: 4, alpha: 8 });
    const model = await importHfModel(base);
    const withAdapter = await createOnnxLearner({
      config: model.config,
      tokenizer,
      weights: model.weights,
      lora: peft.lora,
      adapters: peft.adapters,
      runner: 'local',
    });
    expect(await logprobsOf(withAdapter)).toEqual(expected);
    for (const l of [back, baseOnly, withAdapter, trained]) await l.dispose();
  });

  it('refuses --adapter without adapters and an unknown format', async () => {
    const base = join(tmp.path, 'qwen3-plain');
    await writeQwen3(base);
    const noAdapter = await runCaptured(['export', base, '--adapter', '--out', join(tmp.path, 'x')]);
    expect(noAdapter.code).toBe(1);
    expect(noAdapter.err).toMatch(/no LoRA adapters/);
    const badFormat = await runCaptured(['export', base, '--format', 'gguf', '--out', join(tmp.path, 'y')]);
    expect(badFormat.code).toBe(1);
    expect(badFormat.err).toMatch(/--format/);
    await mkdir(join(tmp.path, 'empty'));
    const empty = await runCaptured(['export', join(tmp.path, 'empty'), '--out', join(tmp.path, 'z')]);
    expect(empty.code).toBe(1);
  });

  it('--max-shard-size and --dtype: bf16 shards with model.safetensors.index.json that load back', async () => {
    const base = join(tmp.path, 'qwen3-shard-src');
    await writeQwen3(base);
    const out = join(tmp.path, 'qwen3-sharded');
    const result = await runJson<ExportModelResult>([
      'export',
      base,
      '--out',
      out,
      '--max-shard-size',
      '20kB',
      '--dtype',
      'bf16',
    ]);
    const shards = result.files.filter((f) => /^model-\d{5}-of-\d{5}\.safetensors$/.test(f));
    expect(shards.length).toBeGreaterThan(1);
    expect(result.files).toContain('model.safetensors.index.json');
    const index = JSON.parse(await readFile(join(out, 'model.safetensors.index.json'), 'utf8'));
    expect(new Set(Object.values(index.weight_map))).toEqual(new Set(shards));
    const original = await importHfModel(base);
    const back = await importHfModel(out);
    for (const [name, w] of original.weights) {
      const got = back.weights.get(name) as Float32Array;
      // bf16 keeps 8 significant bits: within 2^-8 of each value, relative.
      for (let i = 0; i < w.length; i++)
        expect(Math.abs((got[i] as number) - (w[i] as number))).toBeLessThanOrEqual(
          Math.abs(w[i] as number) * 2 ** -8,
        );
    }
    const onnx = await runCaptured([
      'export',
      base,
      '--format',
      'onnx',
      '--dtype',
      'bf16',
      '--out',
      join(tmp.path, 'o'),
    ]);
    expect(onnx.code).toBe(1);
    expect(onnx.err).toMatch(/dtype \(--dtype\) applies to the hf format/);
    const badSize = await runCaptured([
      'export',
      base,
      '--max-shard-size',
      'lots',
      '--out',
      join(tmp.path, 'p'),
    ]);
    expect(badSize.code).toBe(1);
    expect(badSize.err).toMatch(/--max-shard-size: expected a positive size/);
  });
});
