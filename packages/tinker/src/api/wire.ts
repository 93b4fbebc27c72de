/**
 * The JSON shapes of the Tinker REST API this package sends and reads, as the Tinker Python SDK's
 * request and response types define them (field names in snake_case, as on the wire). Responses are
 * checked with zod; unknown fields are allowed (the service may add some). The endpoints and how they
 * are used: architecture/tinker.md.
 */

import { z } from 'zod';

/** A flat tensor: `data` row-major, `shape` optional (1-D when absent). */
export const tensorDataSchema = z.object({
  data: z.array(z.number()),
  dtype: z.enum(['int64', 'float32']),
  shape: z.array(z.int()).nullish(),
});
export type TensorData = z.infer<typeof tensorDataSchema>;

/** Token ids of a model input (the only chunk type this package sends). */
export interface EncodedTextChunk {
  readonly type: 'encoded_text';
  readonly tokens: readonly number[];
}

export interface ModelInput {
  readonly chunks: readonly EncodedTextChunk[];
}

/** One training or scoring sequence: `model_input[i]` predicts `loss_fn_inputs.target_tokens[i]`. */
export interface Datum {
  readonly model_input: ModelInput;
  readonly loss_fn_inputs: Readonly<Record<string, TensorData>>;
}

/** Tinker's built-in losses. */
export type LossFnType = 'cross_entropy' | 'importance_sampling' | 'ppo' | 'cispo' | 'dro';

export interface ForwardBackwardInput {
  readonly data: readonly Datum[];
  readonly loss_fn: LossFnType;
  readonly loss_fn_config?: Readonly<Record<string, number>>;
}

export interface AdamParams {
  readonly learning_rate: number;
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  readonly weight_decay: number;
  /** 0 turns clipping off. */
  readonly grad_clip_norm: number;
}

export interface SamplingParams {
  readonly max_tokens?: number;
  readonly seed?: number;
  readonly stop?: readonly string[] | readonly number[];
  readonly temperature: number;
  /** −1: no limit. */
  readonly top_k: number;
  readonly top_p: number;
}

/** What most endpoints answer at once: the id of a future to poll with `retrieve_future`. */
export const untypedFutureSchema = z.object({
  request_id: z.string().min(1),
  model_id: z.string().nullish(),
});

/** `retrieve_future`'s answer while the request is still queued or running. */
export const tryAgainSchema = z.object({
  type: z.literal('try_again'),
  request_id: z.string().optional(),
  queue_state: z.string().optional(),
});

/** `retrieve_future`'s answer for a request that failed (`category`: unknown, server or user). */
export const requestFailedSchema = z.object({
  error: z.string(),
  category: z.string().optional(),
});

export const createSessionResponseSchema = z.object({
  session_id: z.string().min(1),
  info_message: z.string().nullish(),
  warning_message: z.string().nullish(),
  error_message: z.string().nullish(),
});

export const createModelResponseSchema = z.object({ model_id: z.string().min(1) });

export const forwardBackwardOutputSchema = z.object({
  loss_fn_output_type: z.string(),
  loss_fn_outputs: z.array(z.record(z.string(), tensorDataSchema)),
  metrics: z.record(z.string(), z.number()).default({}),
});
export type ForwardBackwardOutput = z.infer<typeof forwardBackwardOutputSchema>;

export const optimStepResponseSchema = z.object({
  metrics: z.record(z.string(), z.number()).nullish(),
});

/** `save_weights` (training state) and `save_weights_for_sampler` (sampler weights): a `tinker://` path. */
export const savedWeightsResponseSchema = z.object({ path: z.string().min(1) });

export const loadWeightsResponseSchema = z.object({
  path: z.string().nullish(),
  model_id: z.string().nullish(),
});

export const sampleResponseSchema = z.object({
  sequences: z.array(
    z.object({
      stop_reason: z.enum(['length', 'stop']),
      tokens: z.array(z.int()),
      logprobs: z.array(z.number()).nullish(),
    }),
  ),
  prompt_logprobs: z.array(z.number().nullable()).nullish(),
});
export type SampleResponse = z.infer<typeof sampleResponseSchema>;

/** `TensorData` of a 1-D list. */
export function tensor(data: readonly number[], dtype: TensorData['dtype']): TensorData {
  return { data: [...data], dtype, shape: [data.length] };
}

/** A model input of plain token ids. */
export function modelInputOf(tokens: readonly number[]): ModelInput {
  return { chunks: [{ type: 'encoded_text', tokens: [...tokens] }] };
}
