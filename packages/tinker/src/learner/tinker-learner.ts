/**
 * A `LearnerV1` whose weights live in the Tinker service: a LoRA model of `baseModel` created in a new
 * session, updated with `forward_backward` + `optim_step` per mini-batch (the loss mapped as
 * `loss-mapping.ts` says), scored with `forward`, sampled through sampler weights the learner publishes
 * after every update, and checkpointed as the `tinker://` path of a `save_weights` state recorded in the
 * checkpoint directory, which `load` restores with `load_weights` (optimizer state included), so a killed
 * run resumes in a new session. Design: architecture/tinker.md.
 */

import { join } from 'node:path';
import {
  CheckpointError,
  ConfigError,
  createRng,
  emptyUpdateTotals,
  firstIssue,
  InvalidArgumentError,
  type LearnerRowV1,
  type LearnerV1,
  NumericInstabilityError,
  readJsonFile,
  type TokenLossOutput,
  throwIfAborted,
  unpackLogprobRows,
  updateResultOf,
  writeJsonAtomic,
} from '@mage-rl/core';
import { z } from 'zod';
import {
  type AdamParams,
  createModelResponseSchema,
  type ForwardBackwardInput,
  forwardBackwardOutputSchema,
  loadWeightsResponseSchema,
  optimStepResponseSchema,
  savedWeightsResponseSchema,
} from '../api/wire';
import type { CallOptions, TinkerClient } from '../client/tinker-client';
import { createTinkerPolicy, type TinkerPolicyOptions, type TinkerTokenizer } from '../policy/tinker-policy';
import { datumOf, responseValues, type ScoredRow, tokenLossInputOf } from './datums';
import {
  builtinLossInput,
  TINKER_LOSS_KINDS,
  type TinkerLossMapping,
  weightedCrossEntropyInput,
} from './loss-mapping';

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

const CHECKPOINT_FILE = 'tinker-learner.json';

const checkpointSchema = z.object({
  format: z.literal('mage-rl/tinker-learner@1'),
  baseModel: z.string(),
  loraRank: z.int(),
  /** The model that saved it (for the record; `load` restores into this learner's own model). */
  modelId: z.string(),
  statePath: z.string().min(1),
  step: z.int().min(0),
  consecutiveSkips: z.int().min(0),
});

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

const isPlainRow = (row: object): row is LearnerRowV1 => 'promptTokens' in row && 'responseTokens' in row;

/** Creates the session and the LoRA model, and returns the learner (see the module comment). */
export async function createTinkerLearner(options: TinkerLearnerOptions): Promise<TinkerLearner> {
  const settings = resolveOptions(options);
  const { client } = options;
  const call: CallOptions = options.signal ? { signal: options.signal } : {};
  const sessionId = await client.createSession(call);
  const created = await client.submit(
    '/api/v1/create_model',
    {
      session_id: sessionId,
      model_seq_id: 0,
      base_model: settings.baseModel,
      user_metadata: null,
      lora_config: { rank: settings.loraRank, train_unembed: true, train_mlp: true, train_attn: true },
      type: 'create_model',
    },
    createModelResponseSchema,
    call,
  );
  const modelId = created.model_id;
  const adamParams: AdamParams = {
    learning_rate: settings.learningRate,
    beta1: settings.beta1,
    beta2: settings.beta2,
    eps: settings.eps,
    weight_decay: settings.weightDecay,
    grad_clip_norm: settings.gradClipNorm,
  };
  const rootRng = createRng(options.seed);
  // Requests of the model are numbered from 1 (create_model is 0).
  let seq = 1;
  let step = 0;
  let consecutiveSkips = 0;
  let samplerPath: string | null = null;

  const id = options.id ?? `tinker:${settings.baseModel}`;
  const policy = createTinkerPolicy({
    client,
    tokenizer: options.tokenizer,
    target: () => (samplerPath === null ? { baseModel: settings.baseModel } : { modelPath: samplerPath }),
    ...options.policy,
    id,
  });

  const fb = (endpoint: 'forward' | 'forward_backward', input: ForwardBackwardInput, signal?: AbortSignal) =>
    client.submit(
      `/api/v1/${endpoint}`,
      endpoint === 'forward'
        ? { forward_input: input, model_id: modelId, seq_id: seq++ }
        : { forward_backward_input: input, model_id: modelId, seq_id: seq++ },
      forwardBackwardOutputSchema,
      signal ? { signal } : call,
    );

  /** Current log-probs of the rows' response tokens, in chunks of `maxDatumsPerRequest`. */
  async function score(rows: readonly ScoredRow[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let start = 0; start < rows.length; start += settings.maxDatumsPerRequest) {
      const chunk = rows.slice(start, start + settings.maxDatumsPerRequest);
      const data = chunk.map((row, i) =>
        datumOf(row, start + i, { weights: new Array<number>(row.responseTokens.length).fill(1) }),
      );
      const result = await fb('forward', { data, loss_fn: 'cross_entropy' }, signal);
      chunk.forEach((row, i) => {
        out.push(responseValues(row, result.loss_fn_outputs[i]?.logprobs, 'log-probs'));
      });
    }
    return out;
  }

  async function publishSampler(signal?: AbortSignal): Promise<void> {
    const saved = await client.submit(
      '/api/v1/save_weights_for_sampler',
      {
        model_id: modelId,
        path: `mage-sampler-step-${step}`,
        seq_id: seq++,
        type: 'save_weights_for_sampler',
      },
      savedWeightsResponseSchema,
      signal ? { signal } : call,
    );
    samplerPath = saved.path;
  }

  const learner: TinkerLearner = {
    specificationVersion: 'v1',
    id,
    policy,
    get modelId() {
      return modelId;
    },
    get step() {
      return step;
    },
    get samplerPath() {
      return samplerPath;
    },

    async logprobs(input) {
      // Packed rows (a reference model may receive them) are scored as their spans' plain rows.
      const out: Float32Array[] = [];
      for (const one of input) {
        const parts = await score(unpackLogprobRows([one]));
        const joined = new Float32Array(parts.reduce((k, p) => k + p.length, 0));
        let k = 0;
        for (const p of parts) {
          joined.set(p, k);
          k += p.length;
        }
        out.push(joined);
      }
      return out;
    },

    async update(request) {
      const started = performance.now();
      const rows = request.rows.map((row, i) => {
        if (!isPlainRow(row)) {
          throw new InvalidArgumentError(`Row ${i} is packed; the Tinker learner takes plain rows only.`);
        }
        return row;
      });
      const epochs = request.epochs ?? 1;
      const perBatch = request.miniBatchRows ?? rows.length;
      const totals = emptyUpdateTotals();
      for (let epoch = 0; epoch < epochs; epoch++) {
        // Keyed by the optimizer step: a resumed learner shuffles as the uninterrupted one did.
        const order = rootRng.split(`order-${step}`).shuffle(rows.map((_, i) => i));
        for (let start = 0; start < order.length; start += perBatch) {
          throwIfAborted(request.signal);
          const batch = order.slice(start, start + perBatch).map((i) => rows[i] as LearnerRowV1);
          const tokens = batch.reduce((k, r) => k + r.responseTokens.length, 0);
          const signal = request.signal;
          let current: Float32Array[];
          let lossOut: TokenLossOutput;
          if (settings.loss.kind === 'exact') {
            current = await score(batch, signal);
            lossOut = request.loss(tokenLossInputOf(batch, current));
            if (!(Number.isFinite(lossOut.loss) && lossOut.weights.every(Number.isFinite))) {
              consecutiveSkips++;
              totals.skipped++;
              if (consecutiveSkips >= settings.maxConsecutiveSkips) {
                throw new NumericInstabilityError(
                  `The token loss was not finite in ${consecutiveSkips} mini-batches in a row (optimizer step ${step}).`,
                  { context: { step } },
                );
              }
              continue;
            }
            await fb('forward_backward', weightedCrossEntropyInput(batch, lossOut.weights), signal);
          } else {
            // Built-in losses back-propagate on the service: refuse non-finite inputs before sending.
            const finite = batch.every(
              (r) => Number.isFinite(r.advantage) && r.oldLogprobs.every(Number.isFinite),
            );
            if (!finite) {
              throw new InvalidArgumentError(
                `A row of the mini-batch at optimizer step ${step} has a non-finite advantage or sampling log-prob.`,
              );
            }
            const result = await fb('forward_backward', builtinLossInput(settings.loss, batch), signal);
            current = batch.map((row, i) =>
              responseValues(row, result.loss_fn_outputs[i]?.logprobs, 'log-probs'),
            );
            // The loop's loss function at the pre-step log-probs gives the loss and stats it reports.
            lossOut = request.loss(tokenLossInputOf(batch, current));
          }
          await client.submit(
            '/api/v1/optim_step',
            { adam_params: adamParams, model_id: modelId, seq_id: seq++, type: 'optim_step' },
            optimStepResponseSchema,
            signal ? { signal } : call,
          );
          step++;
          consecutiveSkips = 0;
          totals.steps++;
          totals.batches++;
          totals.tokens += tokens;
          totals.loss += lossOut.loss;
          for (const [key, v] of Object.entries(lossOut.stats))
            totals.stats[key] = (totals.stats[key] ?? 0) + v;
        }
      }
      if (totals.steps > 0) await publishSampler(request.signal);
      return updateResultOf(totals, (performance.now() - started) / 1000);
    },

    async save(dir) {
      const saved = await client.submit(
        '/api/v1/save_weights',
        {
          model_id: modelId,
          path: `mage-state-step-${step}`,
          seq_id: seq++,
          overwrite: true,
          type: 'save_weights',
        },
        savedWeightsResponseSchema,
        call,
      );
      await writeJsonAtomic(join(dir, CHECKPOINT_FILE), {
        format: 'mage-rl/tinker-learner@1',
        baseModel: settings.baseModel,
        loraRank: settings.loraRank,
        modelId,
        statePath: saved.path,
        step,
        consecutiveSkips,
      });
    },

    async load(dir) {
      const path = join(dir, CHECKPOINT_FILE);
      const parsed = checkpointSchema.safeParse(await readJsonFile(path));
      if (!parsed.success) {
        throw new CheckpointError(
          `'${path}' is not a Tinker learner checkpoint: ${firstIssue(parsed.error).message}.`,
          {
            context: { path },
          },
        );
      }
      const saved = parsed.data;
      if (saved.baseModel !== settings.baseModel || saved.loraRank !== settings.loraRank) {
        throw new CheckpointError(
          `'${path}' holds a LoRA of rank ${saved.loraRank} on ${saved.baseModel}; this learner trains rank ${settings.loraRank} on ${settings.baseModel}.`,
          { context: { path } },
        );
      }
      await client.submit(
        '/api/v1/load_weights',
        { model_id: modelId, path: saved.statePath, optimizer: true, seq_id: seq++, type: 'load_weights' },
        loadWeightsResponseSchema,
        call,
      );
      step = saved.step;
      consecutiveSkips = saved.consecutiveSkips;
      samplerPath = null;
      if (step > 0) await publishSampler();
    },

    async dispose() {
      client.close();
    },
  };
  return learner;
}
