/**
 * The learner's graphs, one per (rows, length) bucket: a scoring graph (log-probs only) and a training
 * graph (loss, log-probs, entropies and gradients), each built and loaded into the runner on first use.
 */

import { createGraph } from '../graph/graph';
import { serializeGraph } from '../graph/serialize';
import type { LoraOptions } from '../lora/lora';
import type { ModelConfig } from '../model/config';
import { estimateSessionBytes } from '../model/memory-estimate';
import { addModelLoss, buildTrainingGraph } from '../model/training-graph';
import { arenaFor, type GraphRunner } from '../runtime/runner';
import type { TensorValue } from '../runtime/session';
import {
  atPositions,
  bucketOf,
  type MicroBatchLimits,
  microBatches,
  type Packed,
  type Placed,
  pack,
} from './batching';
import { inputLength, type Seq } from './rows';
import { packSegments, segmentMicroBatches } from './segments';

/** What the learner's graph runs need: where they run, the model, and the micro-batch limits. */
export interface GraphContext {
  readonly runner: GraphRunner;
  readonly config: ModelConfig;
  readonly lora: LoraOptions | undefined;
  /** Parameters that get gradients (the adapters with LoRA, else every weight). */
  readonly trainable: readonly string[];
  readonly limits: MicroBatchLimits;
  /** Large-vocabulary graphs: the LM head only at the scored tokens (`Packed.scored`). */
  readonly scoredHead: boolean;
  /**
   * Scoring and training runs hold several sequences per row (`packSegments`; not with `scoredHead`): rows of the
   * bucket length of the update's longest sequence (at least `MIN_SEGMENT_ROW`), or of `segmentRowLength`, filled first-fit decreasing.
   */
  readonly segmentRows: boolean;
  /** The segment rows' fixed length (default: per update, see `segmentRowLength`). */
  readonly segmentRowLength?: number;
  /** The temperature of the distribution the log-probs describe (`OnnxLearnerOptions.logprobTemperature`). */
  readonly temperature: number;
}

/** Packs a micro-batch for this context's graphs. */
const packFor = (ctx: GraphContext, items: readonly Placed[]): Packed =>
  pack(items, ctx.config.maxPositions, ctx.scoredHead);

/**
 * The scoring or training runs of sequences: micro-batches of similar lengths (`microBatches`), or with
 * `segmentRows` rows of several sequences of `rowLength` positions (`segmentMicroBatches`).
 */
export function* runsOf(ctx: GraphContext, placed: readonly Placed[], rowLength: number): Generator<Packed> {
  if (ctx.segmentRows && !ctx.scoredHead) {
    for (const rows of segmentMicroBatches(placed, ctx.limits, rowLength))
      yield packSegments(rows, ctx.config.maxPositions);
  } else {
    for (const items of microBatches(placed, ctx.limits)) yield packFor(ctx, items);
  }
}

/**
 * Segment rows hold at least this many positions (or the model's positions, if fewer): RL mini-batches
 * of a few short sequences then fill one row instead of several half-empty ones (a Higher-Lower recipe
 * update ran 1.2–1.3× faster than with rows of its longest sequence's bucket, 128; architecture/learner.md).
 */
export const MIN_SEGMENT_ROW = 512;

/** The segment rows' length for these sequences: the fixed one, else the bucket of the longest (at least `MIN_SEGMENT_ROW`). */
export const segmentRowLength = (ctx: GraphContext, seqs: readonly Seq[]): number =>
  ctx.segmentRowLength ??
  bucketOf(Math.max(MIN_SEGMENT_ROW, ...seqs.map(inputLength)), ctx.config.maxPositions);

/** The bucket's key suffix and graph options of the scored tokens (large vocabularies) or segments. */
const scoredOf = (p: Packed) =>
  p.scored !== undefined
    ? { suffix: `s${p.scored.length}`, options: { scored: p.scored.length } }
    : p.segments !== undefined
      ? { suffix: 'p', options: { segments: true } }
      : { suffix: '', options: {} };

const loraOf = (ctx: GraphContext) => (ctx.lora === undefined ? {} : { lora: ctx.lora });

/** The graph option and session key suffix of the context's log-prob temperature (none at 1). */
const temperatureOf = (ctx: GraphContext) =>
  ctx.temperature === 1
    ? { suffix: '', options: {} }
    : { suffix: `@t${ctx.temperature}`, options: { temperature: ctx.temperature } };

/**
 * The session options of a [B, T] bucket: its estimated memory; a memory arena only for training runs of
 * at least `ARENA_MIN_POSITIONS` (`arenaFor`; scoring runs none); threads that do not spin between runs (`LoadOptions.spinning`: the
 * runs alternate with the optimizer and other sessions); no memory pattern for the large-vocabulary graphs
 * (see `LoadOptions.memPattern`).
 */
const bucketBytes = (ctx: GraphContext, p: Packed, kind: 'train' | 'forward') => ({
  memArena: kind === 'train' && arenaFor(p.B * p.T),
  spinning: false,
  ...(p.scored === undefined ? {} : { memPattern: false }),
  bytes: estimateSessionBytes(ctx.config, {
    kind,
    rows: p.B,
    tokens: p.T,
    keys: p.T,
    ...(p.scored === undefined ? {} : { headRows: p.scored.length }),
  }),
});

/** Loads the scoring graph of a [B, T] bucket; returns its session key. */
export async function loadScoringGraph(ctx: GraphContext, p: Packed): Promise<string> {
  const s = scoredOf(p);
  const t = temperatureOf(ctx);
  const key = `score:${p.B}x${p.T}${s.suffix}${t.suffix}`;
  await ctx.runner.load(
    key,
    () => {
      const g = createGraph();
      const m = addModelLoss(g, {
        config: ctx.config,
        batch: p.B,
        seqLen: p.T,
        ...s.options,
        ...t.options,
        ...loraOf(ctx),
      });
      g.output('logprobs', m.logprobs);
      return serializeGraph(g);
    },
    bucketBytes(ctx, p, 'forward'),
  );
  return key;
}

/**
 * Loads the training graph of a [B, T] bucket, with the PPO weights computed in the graph when `ppo`
 * (`ppo-weights.ts`); returns its session key.
 */
export async function loadTrainingGraph(ctx: GraphContext, p: Packed, ppo = false): Promise<string> {
  const s = scoredOf(p);
  const t = temperatureOf(ctx);
  const key = `train:${p.B}x${p.T}${s.suffix}${t.suffix}${ppo ? ':ppo' : ''}`;
  await ctx.runner.load(
    key,
    () =>
      serializeGraph(
        buildTrainingGraph({
          config: ctx.config,
          batch: p.B,
          seqLen: p.T,
          trainable: ctx.trainable,
          ...(ppo ? { ppoWeights: true } : {}),
          ...s.options,
          ...t.options,
          ...loraOf(ctx),
        }).graph,
      ),
    bucketBytes(ctx, p, 'train'),
  );
  return key;
}

/** The per-token inputs of the in-graph PPO weights, flat over a mini-batch's scored tokens. */
export interface PpoTokenInputs {
  readonly oldLogprobs: Float32Array;
  readonly refLogprobs: Float32Array;
  readonly advantages: Float32Array;
  readonly scales: Float32Array;
  /** `ppo_params` (`PPO_PARAMS` order). */
  readonly params: Float32Array;
}

/** What a training run's loss weights come from: the token loss's weights, or the PPO weights' inputs. */
export type TokenInputs = { readonly weights: Float32Array } | PpoTokenInputs;

/**
 * The feeds of a training run: the packed inputs, the scored tokens' `tokenInputs` placed at their
 * positions (zero on padding) and `entropyWeight` at every scored position.
 */
export function trainingFeeds(
  p: Packed,
  tokenInputs: TokenInputs,
  entropyWeight: number,
): Record<string, TensorValue> {
  const M = p.targets.length;
  const placed = (values: Float32Array) => ({ data: atPositions(p, values), dims: [M] });
  const entropyWeights = atPositions(p, null, entropyWeight);
  const weightFeeds =
    'weights' in tokenInputs
      ? { weights: placed(tokenInputs.weights) }
      : {
          old_logprobs: placed(tokenInputs.oldLogprobs),
          ref_logprobs: placed(tokenInputs.refLogprobs),
          advantages: placed(tokenInputs.advantages),
          scales: placed(tokenInputs.scales),
          ppo_params: { data: tokenInputs.params, dims: [tokenInputs.params.length] },
        };
  return { ...inputFeeds(p), ...weightFeeds, entropy_weights: { data: entropyWeights, dims: [M] } };
}

/** The feeds of a packed micro-batch with zero loss and entropy weights (a scoring run's). */
export function packedFeeds(p: Packed): Record<string, TensorValue> {
  const zeros = { data: new Float32Array(p.targets.length), dims: [p.targets.length] };
  return { ...inputFeeds(p), weights: zeros, entropy_weights: zeros };
}

/** The token, target, scored-position and segment feeds of a packed micro-batch. */
function inputFeeds(p: Packed): Record<string, TensorValue> {
  const M = p.targets.length;
  return {
    input_ids: { data: p.ids, dims: [p.B, p.T] },
    targets: { data: p.targets, dims: [M] },
    ...(p.scored === undefined ? {} : { scored: { data: p.scored, dims: [M] } }),
    ...(p.segments === undefined
      ? {}
      : {
          position_ids: { data: p.segments.positionIds, dims: [p.B, p.T] },
          attention_mask: { data: p.segments.mask, dims: [p.B, 1, 1, p.T, p.T] },
        }),
  };
}
