/**
 * The requests of one LoRA model on the Tinker service: `create_model` opens it (request 0 of the
 * model), and every later request carries the next `seq_id`, so the service applies them in the order
 * the learner sent them. Each returns once its future has finished.
 */

import {
  type AdamParams,
  createModelResponseSchema,
  type ForwardBackwardInput,
  type ForwardBackwardOutput,
  forwardBackwardOutputSchema,
  loadWeightsResponseSchema,
  optimStepResponseSchema,
  savedWeightsResponseSchema,
} from '../api/wire';
import type { CallOptions, TinkerClient } from '../client/tinker-client';

export interface ModelCalls {
  readonly modelId: string;
  /** Log-probs of the data's targets (`loss_fn_outputs[i].logprobs`), no gradient. */
  forward(input: ForwardBackwardInput, signal?: AbortSignal): Promise<ForwardBackwardOutput>;
  /** Adds the loss's gradients to the model's accumulated ones. */
  forwardBackward(input: ForwardBackwardInput, signal?: AbortSignal): Promise<ForwardBackwardOutput>;
  optimStep(adam: AdamParams, signal?: AbortSignal): Promise<void>;
  /** Saves weights and optimizer state under `name`; returns the `tinker://` path. */
  saveState(name: string): Promise<string>;
  /** Saves sampler weights under `name`; returns the `tinker://` path `asample` takes. */
  saveSampler(name: string, signal?: AbortSignal): Promise<string>;
  /** Replaces weights and optimizer state with those saved at `path`. */
  loadState(path: string): Promise<void>;
}

/** Opens a LoRA model of `baseModel` in the client's session. */
export async function createModel(
  client: TinkerClient,
  model: { readonly baseModel: string; readonly loraRank: number },
  call: CallOptions,
): Promise<ModelCalls> {
  const sessionId = await client.createSession(call);
  const { model_id: modelId } = await client.submit(
    '/api/v1/create_model',
    {
      session_id: sessionId,
      model_seq_id: 0,
      base_model: model.baseModel,
      user_metadata: null,
      lora_config: { rank: model.loraRank, train_unembed: true, train_mlp: true, train_attn: true },
      type: 'create_model',
    },
    createModelResponseSchema,
    call,
  );
  let seq = 1;
  const callOf = (signal?: AbortSignal): CallOptions => (signal ? { signal } : call);
  return {
    modelId,
    forward: (input, signal) =>
      client.submit(
        '/api/v1/forward',
        { forward_input: input, model_id: modelId, seq_id: seq++ },
        forwardBackwardOutputSchema,
        callOf(signal),
      ),
    forwardBackward: (input, signal) =>
      client.submit(
        '/api/v1/forward_backward',
        { forward_backward_input: input, model_id: modelId, seq_id: seq++ },
        forwardBackwardOutputSchema,
        callOf(signal),
      ),
    async optimStep(adam, signal) {
      await client.submit(
        '/api/v1/optim_step',
        { adam_params: adam, model_id: modelId, seq_id: seq++, type: 'optim_step' },
        optimStepResponseSchema,
        callOf(signal),
      );
    },
    async saveState(name) {
      const saved = await client.submit(
        '/api/v1/save_weights',
        { model_id: modelId, path: name, seq_id: seq++, overwrite: true, type: 'save_weights' },
        savedWeightsResponseSchema,
        call,
      );
      return saved.path;
    },
    async saveSampler(name, signal) {
      const saved = await client.submit(
        '/api/v1/save_weights_for_sampler',
        { model_id: modelId, path: name, seq_id: seq++, type: 'save_weights_for_sampler' },
        savedWeightsResponseSchema,
        callOf(signal),
      );
      return saved.path;
    },
    async loadState(path) {
      await client.submit(
        '/api/v1/load_weights',
        { model_id: modelId, path, optimizer: true, seq_id: seq++, type: 'load_weights' },
        loadWeightsResponseSchema,
        call,
      );
    },
  };
}
