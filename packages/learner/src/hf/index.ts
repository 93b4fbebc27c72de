export { buildExportGraph, exportDimParams, serializeExportModel } from './export-graph';
export { fromHfConfig, toHfConfig } from './hf-config';
export { type ExportHfOptions, exportHfModel, type HfModel, importHfModel } from './hf-io';
export { type HfTokenizerOptions, loadHfTokenizer } from './hf-tokenizer';
export { type ExportPeftOptions, exportPeftAdapter, importPeftAdapter, type PeftAdapter } from './peft';
