/**
 * The training graph of one (batch, length) bucket: forward pass, chunked LM-head log-probs and the
 * hand-built backward pass in one ONNX model. Weights are inputs; gradients are outputs.
 *
 * Inputs: every parameter (by its HF name), `input_ids` [B, T] int64, `targets` [B·T] int64,
 * `weights` [B·T], `entropy_weights` [B·T]. Outputs: `loss` = −Σ weights·log p(target) −
 * Σ entropy_weights·H, `logprobs` [B·T], `entropy` [B·T], and `grad.<name>` per trainable parameter.
 * With `ppoWeights`, the weights are computed in the graph from its log-probs (`ppo-weights.ts`).
 * With `scored` = M (large vocabularies), the head runs only at the M flat positions (b·T + t) of the
 * int64 input `scored` [M], and `targets`, the weights, `logprobs` and `entropy` are [M].
 * With `segments`, a row holds several sequences one after the other: the int64 input `position_ids`
 * [B, T] gives every token its position in its own sequence (the RoPE tables are gathered at it) and
 * `attention_mask` [B, 1, 1, T, T] (additive) lets a token see only the earlier tokens of its sequence.
 */

import { gradients } from '../graph/autodiff';
import { createGraph, type Graph } from '../graph/graph';
import type { FloatDType, Tensor } from '../graph/tensor';
import { addLoraInputs, type LoraOptions, loraSpecs } from '../lora/lora';
import type { ModelConfig } from './config';
import { lmHeadLogprobs } from './lm-head';
import { lmHeadVocabChunks } from './lm-head-vocab';
import { paramSpecs } from './params';
import { addPpoWeightInputs, type PpoWeightInputs, ppoWeights } from './ppo-weights';
import { causalMask, headWeight, ropeTables, transformerForward } from './transformer';

export interface ModelLossOptions {
  readonly config: ModelConfig;
  readonly batch: number;
  readonly seqLen: number;
  readonly chunkRows?: number;
  /**
   * Computes the LM head only at this many positions, given by the input `scored` [M] (flat b·T + t;
   * padding may repeat a position, with zero weights). Default: at every position.
   */
  readonly scored?: number;
  /**
   * LM head in vocabulary chunks of this many columns (`lmHeadVocabChunks`; default with `scored`:
   * `defaultVocabChunk`). Without either, the head runs in row chunks (`lmHeadLogprobs`).
   */
  readonly vocabChunk?: number;
  /** LoRA adapters: extra inputs `<linear>.lora_A/B.weight` applied to the targeted projections. */
  readonly lora?: LoraOptions;
  /**
   * Causal attention in this many query blocks, skipping the key blocks above the diagonal (default
   * `defaultAttentionBlocks(seqLen)`).
   */
  readonly attentionBlocks?: number;
  /**
   * Rows of several sequences each (inputs `position_ids` and `attention_mask`, see the module comment;
   * built by `segments.ts`' `packSegments`). Default: one sequence per row, at positions 0…T−1.
   */
  readonly segments?: boolean;
  /**
   * The log-probs and entropies are those of softmax(logits / temperature): the distribution a sampler at
   * this temperature draws from (default 1).
   */
  readonly temperature?: number;
  /**
   * The loss weights are the PPO weights computed in the graph from its own log-probs (`ppo-weights.ts`:
   * inputs `old_logprobs`, `ref_logprobs`, `advantages`, `scales`, `ppo_params` instead of `weights`).
   */
  readonly ppoWeights?: boolean;
}

/** One query block per 128 positions, at most 8 (measured best at 256 and 512 positions). */
export function defaultAttentionBlocks(seqLen: number): number {
  return Math.max(1, Math.min(8, Math.floor(seqLen / 128)));
}

export interface ModelLoss {
  readonly params: Record<string, Tensor>;
  readonly tokens: Tensor;
  readonly targets: Tensor;
  readonly weights: Tensor;
  readonly entropyWeights: Tensor;
  /** The `scored` input (with `scored`). */
  readonly scored?: Tensor;
  readonly loss: Tensor;
  readonly logprobs: Tensor;
  readonly entropy: Tensor;
}

/** Adds the model's inputs, forward pass and loss to `g`. */
export function addModelLoss(g: Graph, options: ModelLossOptions): ModelLoss {
  const { config: c, batch: B, seqLen: T } = options;
  const params: Record<string, Tensor> = {};
  for (const spec of paramSpecs(c)) params[spec.name] = g.input(spec.name, spec.shape, g.float);
  const lora = options.lora === undefined ? undefined : addLoraInputs(g, c, options.lora);
  Object.assign(params, lora?.params ?? {});
  const tokens = g.input('input_ids', [B, T], 'int64');
  const M = options.scored ?? B * T;
  const scored = options.scored === undefined ? null : g.input('scored', [M], 'int64');
  const targets = g.input('targets', [M], 'int64');
  const ppoInputs = options.ppoWeights === true ? addPpoWeightInputs(g, M) : null;
  const weightsInput = ppoInputs === null ? g.input('weights', [M], g.float) : null;
  const entropyWeights = g.input('entropy_weights', [M], g.float);
  const rope = ropeTables(c, T, g.float);
  const hd = c.headDim;
  const positions = options.segments === true ? g.input('position_ids', [B, T], 'int64') : null;
  // Per-token tables [B, T, 1, hd] gathered at each token's position in its sequence.
  const table = (t: Float32Array | Float64Array) =>
    positions === null
      ? g.constant(t, [T, 1, hd])
      : g.reshape(g.gather(g.constant(t, [T, hd]), positions), [B, T, 1, hd]);
  const { hidden } = transformerForward(g, {
    config: c,
    params,
    tokens,
    attention: {
      // The segment mask is causal too, so the query blocks may still skip the keys above the diagonal.
      mask:
        positions === null
          ? g.constant(causalMask(T, g.float), [T, T])
          : g.input('attention_mask', [B, 1, 1, T, T], g.float),
      causalBlocks: options.attentionBlocks ?? defaultAttentionBlocks(T),
      cos: table(rope.cos),
      sin: table(rope.sin),
    },
    ...(lora === undefined ? {} : { linearHook: lora.hook }),
  });
  const flat = g.reshape(hidden, [B * T, c.hiddenSize]);
  const headInput = scored === null ? flat : g.gather(flat, scored);
  // logits / T = (hidden / T) · Wᵀ: the scale goes on the smaller side of the head's product.
  const temperature = options.temperature ?? 1;
  const head = {
    hidden: temperature === 1 ? headInput : g.mul(headInput, g.scalar(1 / temperature)),
    weight: headWeight(c, params),
    targets,
    ...(options.chunkRows === undefined ? {} : { chunkRows: options.chunkRows }),
  };
  const { logprobs, entropy } =
    options.vocabChunk !== undefined || scored !== null
      ? lmHeadVocabChunks(g, {
          ...head,
          ...(options.vocabChunk === undefined ? {} : { vocabChunk: options.vocabChunk }),
        })
      : lmHeadLogprobs(g, head);
  const weights = weightsInput ?? ppoWeights(g, logprobs, ppoInputs as PpoWeightInputs);
  const loss = g.neg(
    g.add(
      g.reduceSum(g.mul(weights, logprobs), [0], false),
      g.reduceSum(g.mul(entropyWeights, entropy), [0], false),
    ),
  );
  return {
    params,
    tokens,
    targets,
    weights,
    entropyWeights,
    ...(scored === null ? {} : { scored }),
    loss,
    logprobs,
    entropy,
  };
}

export interface TrainingGraphOptions extends ModelLossOptions {
  readonly float?: FloatDType;
  /** Parameters that get gradients (default: the LoRA adapters with `lora`, else all base parameters). */
  readonly trainable?: readonly string[];
}

export interface TrainingGraph {
  readonly graph: Graph;
  readonly model: ModelLoss;
  readonly trainable: readonly string[];
}

export function buildTrainingGraph(options: TrainingGraphOptions): TrainingGraph {
  const g = createGraph({ float: options.float ?? 'float32' });
  const model = addModelLoss(g, options);
  g.output('loss', model.loss);
  g.output('logprobs', model.logprobs);
  g.output('entropy', model.entropy);
  const trainable =
    options.trainable ??
    (options.lora === undefined ? paramSpecs(options.config) : loraSpecs(options.config, options.lora)).map(
      (s) => s.name,
    );
  const grads = gradients(
    g,
    model.loss,
    trainable.map((n) => model.params[n] as Tensor),
  );
  trainable.forEach((name, i) => {
    g.output(`grad.${name}`, grads[i] as Tensor);
  });
  return { graph: g, model, trainable };
}
