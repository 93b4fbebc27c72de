export {
  bucketLength,
  createGenerator,
  type GeneratedRow,
  type GenerateTokensOptions,
  type Generator,
  type GeneratorOptions,
  nextPow2,
} from './generator';
export { addParamInputs, buildDecodeGraph, buildPrefillGraph, type InferenceGraphOptions } from './graphs';
export { argmax, DEFAULT_SAMPLING, type SamplingParams, sampleToken } from './sample';
