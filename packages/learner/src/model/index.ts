export { type Architecture, defineModelConfig, type ModelConfig, type ModelConfigInput } from './config';
export {
  defaultChunkRows,
  isLargeVocab,
  LARGE_VOCAB_MIN,
  type LmHeadOptions,
  type LmHeadResult,
  lmHeadLogprobs,
} from './lm-head';
export { defaultVocabChunk, lmHeadVocabChunks, type VocabChunkOptions } from './lm-head-vocab';
export {
  createMageTinyConfig,
  MAGE_TINY_CONFIG,
  type MageTinyConfigOptions,
  type MageTinySize,
} from './mage-tiny';
export { estimateSessionBytes, type RunShape } from './memory-estimate';
export {
  countParams,
  fillNormal,
  initParams,
  layerPrefix,
  type ParamKind,
  type ParamSpec,
  type ParamStore,
  paramSpecs,
} from './params';
export {
  addModelLoss,
  buildTrainingGraph,
  defaultAttentionBlocks,
  type ModelLoss,
  type ModelLossOptions,
  type TrainingGraph,
  type TrainingGraphOptions,
} from './training-graph';
export {
  type AttentionContext,
  applyRope,
  causalMask,
  type ForwardOptions,
  type ForwardResult,
  headWeight,
  type LinearHook,
  linear,
  MASK_NEG,
  rmsNorm,
  ropeTables,
  transformerForward,
} from './transformer';
