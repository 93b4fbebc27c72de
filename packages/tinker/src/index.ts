export {
  type AdamParams,
  type Datum,
  type ForwardBackwardInput,
  type ForwardBackwardOutput,
  type LossFnType,
  type ModelInput,
  modelInputOf,
  type SampleResponse,
  type SamplingParams,
  type TensorData,
  tensor,
} from './api/wire';
export {
  type CallOptions,
  createTinkerClient,
  type HeartbeatStatus,
  TINKER_CLIENT_DEFAULTS,
  type TinkerClient,
  type TinkerClientOptions,
  type TinkerRetry,
} from './client/tinker-client';
export { TinkerError, type TinkerFailure } from './client/tinker-error';
export { TINKER_LOSS_KINDS, type TinkerLossMapping } from './learner/loss-mapping';
export {
  createTinkerLearner,
  TINKER_ADAM_DEFAULTS,
  type TinkerAdamOptions,
  type TinkerLearner,
  type TinkerLearnerOptions,
} from './learner/tinker-learner';
export {
  createTinkerPolicy,
  type SamplingTarget,
  type TinkerPolicyOptions,
  type TinkerTokenizer,
} from './policy/tinker-policy';
