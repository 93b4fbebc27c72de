import { createRng, type LearnerRowV1, MageError, type TokenLossFn } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { checkGradients, randomFloat64 } from '../graph/gradcheck';
import type { Tensor } from '../graph/tensor';
import { createOnnxLearner } from '../learner/onnx-learner';
import { defineModelConfig } from '../model/config';
import { initParams, paramSpecs } from '../model/params';
import { addModelLoss } from '../model/training-graph';
import { createByteTokenizer } from '../tokenizer/tokenizer';
import { initLora, type LoraOptions, loraSpecs } from './lora';

const lora: LoraOptions = { rank: 2, alpha: 4, targets: ['q_proj', 'v_proj', 'down_proj'] };

/** A model small enough to check by hand and by finite differences: 11 tokens, width 8, MLP width 12. */
const smallConfig = (layout: { numLayers: number; numHeads: number; numKvHeads?: number }) =>
  defineModelConfig({ vocabSize: 11, hiddenSize: 8, intermediateSize: 12, ...layout });

describe('LoRA', () => {
  it('names adapters like PEFT and validates options', () => {
    const config = smallConfig({ numLayers: 1, numHeads: 2 });
    expect(loraSpecs(config, lora).map((s) => `${s.name}:${s.shape.join('x')}`)).toEqual([
      'model.layers.0.self_attn.q_proj.lora_A.weight:2x8',
      'model.layers.0.self_attn.q_proj.lora_B.weight:8x2',
      'model.layers.0.self_attn.v_proj.lora_A.weight:2x8',
      'model.layers.0.self_attn.v_proj.lora_B.weight:8x2',
      'model.layers.0.mlp.down_proj.lora_A.weight:2x12',
      'model.layers.0.mlp.down_proj.lora_B.weight:8x2',
    ]);
    expect(() => loraSpecs(config, { rank: 0 })).toThrow();
    try {
      loraSpecs(config, { rank: 2, targets: ['x_proj' as never] });
    } catch (e) {
      expect(MageError.isInstance(e)).toBe(true);
    }
  });

  it('adapter gradients match central differences (fp64)', async () => {
    const config = smallConfig({ numLayers: 2, numHeads: 4, numKvHeads: 2 });
    const result = await checkGradients({
      seed: 4,
      samples: 6,
      build: (g, rng) => {
        const m = addModelLoss(g, { config, batch: 2, seqLen: 4, lora });
        const base = initParams(config, createRng(2), { std: 0.5 });
        const feeds: { tensor: Tensor; data: Float64Array | BigInt64Array; check?: boolean }[] = paramSpecs(
          config,
        ).map((s) => ({
          tensor: m.params[s.name] as Tensor,
          data: Float64Array.from(base.get(s.name) as Float32Array),
          check: false,
        }));
        for (const s of loraSpecs(config, lora)) {
          const n = (s.shape[0] as number) * (s.shape[1] as number);
          feeds.push({ tensor: m.params[s.name] as Tensor, data: randomFloat64(rng.split(s.name), n, 0.5) });
        }
        const ids = (label: string) =>
          BigInt64Array.from({ length: 8 }, (_, i) => BigInt(rng.split(label).split(i).int(11)));
        feeds.push({ tensor: m.tokens, data: ids('t') }, { tensor: m.targets, data: ids('y') });
        feeds.push({ tensor: m.weights, data: randomFloat64(rng.split('w'), 8), check: false });
        feeds.push({ tensor: m.entropyWeights, data: randomFloat64(rng.split('e'), 8), check: false });
        return { feeds, output: m.loss };
      },
    });
    expect(Object.keys(result.errors).length).toBe(loraSpecs(config, lora).length);
    expect(result.scale).toBeGreaterThan(1e-3);
    expect(result.maxError).toBeLessThan(1e-5);
  });

  it('trains only the adapters, and merged weights reproduce the adapted model', async () => {
    const config = defineModelConfig({
      vocabSize: 257,
      hiddenSize: 16,
      numLayers: 2,
      numHeads: 4,
      intermediateSize: 32,
      maxPositions: 64,
    });
    const tokenizer = createByteTokenizer();
    const learner = await createOnnxLearner({
      config,
      tokenizer,
      seed: 3,
      runner: 'local',
      lora,
      optimizer: { lr: 3e-2, weightDecay: 0 },
    });
    const baseBefore = Float32Array.from(
      learner.weights.get('model.layers.0.self_attn.q_proj.weight') as Float32Array,
    );
    const rows: LearnerRowV1[] = [
      {
        promptTokens: tokenizer.encode('ping'),
        responseTokens: tokenizer.encode(' pong'),
        oldLogprobs: [0, 0, 0, 0, 0],
        advantage: 1,
      },
    ];
    const ce: TokenLossFn = (x) => ({
      weights: new Float32Array(x.logprobs.length).fill(1 / x.logprobs.length),
      loss: 0,
      stats: {},
    });
    const before = await learner.logprobs(rows);
    await learner.update({ rows, loss: ce, epochs: 15 });
    const after = await learner.logprobs(rows);
    const sum = (x: Float32Array[]) => x.flatMap((v) => Array.from(v)).reduce((p, v) => p + v, 0);
    // A rank-2 adapter on a near-uniform random model learns slowly; the direction is what matters.
    expect(sum(after)).toBeGreaterThan(sum(before) + 0.3);
    expect(Array.from(learner.weights.get('model.layers.0.self_attn.q_proj.weight') as Float32Array)).toEqual(
      Array.from(baseBefore),
    );

    const merged = await createOnnxLearner({
      config,
      tokenizer,
      runner: 'local',
      weights: learner.mergedWeights(),
    });
    const mergedLp = await merged.logprobs(rows);
    (after[0] as Float32Array).forEach((v, j) => {
      expect(Math.abs(v - ((mergedLp[0] as Float32Array)[j] as number))).toBeLessThan(1e-4);
    });
    expect(
      initLora(config, lora, createRng(1))
        .get('model.layers.0.self_attn.q_proj.lora_B.weight')
        ?.every((x) => x === 0),
    ).toBe(true);
    await learner.dispose();
    await merged.dispose();
  });
});
