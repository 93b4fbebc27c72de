export { bucketLength, nextPow2 } from './generate-shape';
export {
  createGenerator,
  type GeneratedRow,
  type GenerateTokensOptions,
  type Generator,
  type GeneratorOptions,
  type GeneratorStats,
} from './generator';
export {
  addParamInputs,
  buildDecodeGraph,
  buildDistributionGraph,
  buildPrefillGraph,
  type InferenceGraphOptions,
} from './graphs';
export {
  createPrefixIndex,
  DEFAULT_PREFIX_CACHE_BYTES,
  MIN_PREFIX_TOKENS,
  type PrefixCacheOptions,
  type PrefixIndex,
  type PrefixMatch,
} from './prefix-cache';
export { argmax, DEFAULT_SAMPLING, type SamplingParams, sampleToken } from './sample';
