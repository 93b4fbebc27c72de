export {
  buildMageTinyTokenizer,
  createMageTiny,
  loadMageTiny,
  MAGE_TINY_FORMAT,
  type MageTinyManifest,
  readMageTinyManifest,
  saveMageTiny,
} from './pipelines/mage-tiny';
export {
  DEFAULT_CACHE_DIR,
  type PretrainEnvResult,
  type PretrainOptions,
  type PretrainProgress,
  type PretrainResult,
  pretrainMageTiny,
  warmStartDir,
  warmStartKey,
} from './pipelines/pretrain';
export {
  ensureWarmStart,
  type TrainPipelineOptions,
  type TrainPipelineResult,
  trainConfigOf,
  trainPipeline,
} from './pipelines/train';
export { type Io, processIo, reportError } from './program/error-boundary';
export { buildProgram, runCli } from './program/program';
export { type ReportFiles, type RunData, readRun, writeReport } from './report/run-report';
