// The client half is core's (it needs no model runtime); served beside the server it talks to.
export { createRemotePolicy, type RemotePolicyOptions } from '@mage-rl/core';
export type { ServeLimits } from './api/generation';
export {
  chatRequestSchema,
  completionRequestSchema,
  MAX_N,
  MAX_STOP_STRINGS,
  MAX_TOP_LOGPROBS,
} from './api/schemas';
export { createServedLearner, type ServedLearner, type ServedLearnerOptions } from './client/served-learner';
export type { TopLogprob } from './engine/distributions';
export {
  type CreateEngineOptions,
  createServeEngine,
  DEFAULT_ENGINE_LIMITS,
  EngineBusyError,
  type EngineLimits,
  type EngineStats,
  type RowRequest,
  type RowResult,
  type ServeEngine,
} from './engine/engine';
export type { ServedModel } from './engine/served-model';
export { ApiError, type ErrorBody } from './http/errors';

export {
  createOpenAiServer,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONCURRENT_REQUESTS,
  DEFAULT_SERVE_LIMITS,
  type OpenAiServer,
  type OpenAiServerOptions,
} from './http/server';
export { type ServeOptions, servedModelOf, serveModel } from './model-dir/serve-model';
