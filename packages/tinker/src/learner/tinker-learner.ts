/**
 * A `LearnerV1` whose weights live in the Tinker service: a LoRA model of `baseModel` created in a new
 * session, updated with `forward_backward` + `optim_step` per mini-batch (the loss mapped as
 * `loss-mapping.ts` says), scored with `forward`, sampled through sampler weights the learner publishes
 * after every update, and checkpointed as the `tinker://` path of a `save_weights` state recorded in the
 * checkpoint directory, which `load` restores with `load_weights` (optimizer state included), so a killed
 * run resumes in a new session. Design: architecture/tinker.md.
 */

import {
  ConfigError,
  createRng,
  firstIssue,
  joinSpanLogprobs,
  type LearnerV1,
  unpackLogprobRows,
} from '@mage-rl/core';
import { z } from 'zod';
import type { TinkerClient } from '../client/tinker-client';
import { createTinkerPolicy, type TinkerPolicyOptions, type TinkerTokenizer } from '../policy/tinker-policy';
import { loadTinker, saveTinker } from './checkpoint';
import { TINKER_LOSS_KINDS, type TinkerLossMapping } from './loss-mapping';
import { createModel } from './model-calls';
import { type LearnerContext, scoreRows, updateOnService } from './update';

/** Tinker's Adam parameters (decoupled weight decay; `gradClipNorm` 0 = no clipping). */
export interface TinkerAdamOptions {
  readonly learningRate: number;
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  readonly weightDecay: number;
  readonly gradClipNorm: number;
}

/** The Tinker SDK's defaults. */
export const TINKER_ADAM_DEFAULTS: TinkerAdamOptions = {
  learningRate: 1e-4,
  beta1: 0.9,
  beta2: 0.95,
  eps: 1e-12,
  weightDecay: 0,
  gradClipNorm: 0,
};

export interface TinkerLearnerOptions {
  readonly client: TinkerClient;
  /** The base model to fine-tune, as the service names it (e.g. `Qwen/Qwen3-8B`). */
  readonly baseModel: string;
  readonly loraRank: number;
  /** The base model's tokenizer: the service takes and returns token ids. */
  readonly tokenizer: TinkerTokenizer;
  /** Seeds the mini-batch order (keyed by optimizer step, so a resumed run shuffles the same way). */
  readonly seed: number | string;
  readonly adam?: Partial<TinkerAdamOptions>;
  /** Default `{ kind: 'exact' }`. */
  readonly loss?: TinkerLossMapping;
  /** Consecutive skipped (non-finite) steps before `NumericInstabilityError`. Default 3. */
  readonly maxConsecutiveSkips?: number;
  /** Datums per `forward` request of `logprobs`. Default 64. */
  readonly maxDatumsPerRequest?: number;
  readonly policy?: Pick<TinkerPolicyOptions, 'defaultMaxTokens' | 'concurrency'>;
  /** Default `tinker:<baseModel>`. */
  readonly id?: string;
  readonly signal?: AbortSignal;
}

export interface TinkerLearner extends LearnerV1 {
  /** The service's id of the model this learner trains. */
  readonly modelId: string;
  /** Optimizer steps taken (restored by `load`). */
  readonly step: number;
  /** The sampler weights the policy samples from; null before the first update (the base model). */
  readonly samplerPath: string | null;
}

const optionsSchema = z.object({
  baseModel: z.string({ error: 'a non-empty string' }).min(1, { error: 'a non-empty string' }),
  loraRank: z.int({ error: 'an integer >= 1' }).min(1, { error: 'an integer >= 1' }),
  learningRate: z.number({ error: 'a number > 0' }).positive({ error: 'a number > 0' }),
  beta1: z.number().min(0).lt(1, { error: 'a number in [0, 1)' }),
  beta2: z.number().min(0).lt(1, { error: 'a number in [0, 1)' }),
  eps: z.number().positive({ error: 'a number > 0' }),
  weightDecay: z.number().min(0, { error: 'a number >= 0' }),
  gradClipNorm: z.number().min(0, { error: 'a number >= 0' }),
  loss: z.discriminatedUnion(
    'kind',
    [
      z.object({ kind: z.literal('exact') }),
      z.object({ kind: z.literal('ppo'), clipLow: z.number().gt(0).lt(1), clipHigh: z.number().gt(0) }),
      z.object({ kind: z.literal('importance_sampling') }),
    ],
    { error: `one of ${TINKER_LOSS_KINDS.join(', ')} (ppo with 0 < clipLow < 1 and clipHigh > 0)` },
  ),
  maxConsecutiveSkips: z.int().min(1, { error: 'an integer >= 1' }),
  maxDatumsPerRequest: z.int().min(1, { error: 'an integer >= 1' }),
});

function resolveOptions(options: TinkerLearnerOptions) {
  const adam = { ...TINKER_ADAM_DEFAULTS, ...options.adam };
  const input = {
    baseModel: options.baseModel,
    loraRank: options.loraRank,
    ...adam,
    loss: options.loss ?? { kind: 'exact' },
    maxConsecutiveSkips: options.maxConsecutiveSkips ?? 3,
    maxDatumsPerRequest: options.maxDatumsPerRequest ?? 64,
  };
  const parsed = optionsSchema.safeParse(input);
  if (parsed.success) return { ...parsed.data, loss: parsed.data.loss as TinkerLossMapping };
  const { path, value, message } = firstIssue(parsed.error, input);
  throw new ConfigError(`createTinkerLearner: ${path} must be ${message}, got ${JSON.stringify(value)}.`, {
    path,
    context: { value },
  });
}

/** Creates the session and the LoRA model, and returns the learner (see the module comment). */
export async function createTinkerLearner(options: TinkerLearnerOptions): Promise<TinkerLearner> {
  const settings = resolveOptions(options);
  const { client } = options;
  const calls = await createModel(client, settings, options.signal ? { signal: options.signal } : {});
  const ctx: LearnerContext = {
    calls,
    baseModel: settings.baseModel,
    loraRank: settings.loraRank,
    loss: settings.loss,
    adam: {
      learning_rate: settings.learningRate,
      beta1: settings.beta1,
      beta2: settings.beta2,
      eps: settings.eps,
      weight_decay: settings.weightDecay,
      grad_clip_norm: settings.gradClipNorm,
    },
    maxConsecutiveSkips: settings.maxConsecutiveSkips,
    maxDatumsPerRequest: settings.maxDatumsPerRequest,
    rng: createRng(options.seed),
    state: { step: 0, consecutiveSkips: 0, samplerPath: null },
  };
  const id = options.id ?? `tinker:${settings.baseModel}`;
  const policy = createTinkerPolicy({
    client,
    tokenizer: options.tokenizer,
    target: () => {
      const path = ctx.state.samplerPath;
      return path === null ? { baseModel: settings.baseModel } : { modelPath: path };
    },
    ...options.policy,
    id,
  });
  return {
    specificationVersion: 'v1',
    id,
    policy,
    modelId: calls.modelId,
    get step() {
      return ctx.state.step;
    },
    get samplerPath() {
      return ctx.state.samplerPath;
    },
    async logprobs(input) {
      // Packed rows (a reference model may receive them) are scored as their spans' plain rows.
      const out: Float32Array[] = [];
      for (const one of input) {
        out.push(joinSpanLogprobs(await scoreRows(ctx, unpackLogprobRows([one]))));
      }
      return out;
    },
    update: (request) => updateOnService(ctx, request),
    save: (dir) => saveTinker(ctx, dir),
    load: (dir) => loadTinker(ctx, dir),
    async dispose() {
      client.close();
    },
  };
}
