export {
  EXPORT_FORMATS,
  type ExportFormat,
  type ExportModelOptions,
  type ExportModelResult,
  exportModel,
  TOKENIZER_FILES,
} from './export-model';
export {
  DEFAULT_LORA,
  LORA_THRESHOLD_PARAMS,
  type LoadedModel,
  type LoadModelOptions,
  loadModel,
  loadModelSource,
  loraOf,
  type ModelKind,
  type ModelSourceV1,
  modelKindOf,
} from './load-model';
export {
  type CreateMageTinyOptions,
  createMageTiny,
  learnerMemoryOptions,
  loadMageTiny,
  MAGE_TINY_FORMAT,
  type MageTinyManifest,
  readMageTinyManifest,
  saveMageTiny,
  wordLevelTokenizerOf,
} from './mage-tiny-dir';
export {
  checkRunMemory,
  estimateRunMemory,
  type MemoryCheckOptions,
  type MemoryEstimate,
  type MemoryEstimateOptions,
  modelConfigOf,
  SKIP_MEMORY_CHECK_ENV,
} from './run-memory';
