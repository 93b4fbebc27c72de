export { buildExportGraph, exportDimParams, serializeExportModel } from './export-graph';
export { fromHfConfig, toHfConfig } from './hf-config';
export {
  type ExportHfOptions,
  exportHfModel,
  type HfModel,
  type HfSafetensorsOptions,
  type ImportHfOptions,
  importHfModel,
} from './hf-io';
export { type HfTokenizerOptions, loadHfTokenizer } from './hf-tokenizer';
export { type ExportPeftOptions, exportPeftAdapter, importPeftAdapter, type PeftAdapter } from './peft';
export {
  DEFAULT_MAX_SHARD_BYTES,
  formatShardIndex,
  parseByteSize,
  planShards,
  readShardIndex,
  SAFETENSORS_INDEX_FILE,
  type ShardPlan,
  SINGLE_SAFETENSORS_FILE,
} from './shards';
