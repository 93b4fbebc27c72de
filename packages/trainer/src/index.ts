export { evalPlayOptions } from './evaluate/eval-play';
export { playAgentOf } from './evaluate/play-agent';
export {
  checkExperiment,
  type EvalMemory,
  EXPERIMENT_EVAL_FORMAT,
  EXPERIMENT_FORMAT,
  type ExperimentCallV1,
  type ExperimentEvalV1,
  type ExperimentOptions,
  type ExperimentPolicy,
  type ExperimentRecordV1,
  type ExperimentSpecV1,
  evalPath,
  experimentPolicies,
  fileLabel,
  type GridAxis,
  policyConfig,
  policyMemories,
  readExperimentEvals,
  readExperimentRecord,
  runExperiment,
  WARM_START,
} from './experiment/experiment';
export {
  EXPORT_FORMATS,
  type ExportFormat,
  type ExportModelOptions,
  type ExportModelResult,
  exportModel,
  TOKENIZER_FILES,
} from './model/export-model';
export {
  buildMageTinyTokenizer,
  type CreateMageTinyOptions,
  createMageTiny,
  learnerMemoryOptions,
  loadMageTiny,
  MAGE_TINY_FORMAT,
  type MageTinyManifest,
  readMageTinyManifest,
  saveMageTiny,
} from './model/mage-tiny';
export {
  checkRunMemory,
  estimateRunMemory,
  type MemoryCheckOptions,
  type MemoryEstimate,
  type MemoryEstimateOptions,
  memoryLimitsOfConfig,
  modelConfigOf,
  SKIP_MEMORY_CHECK_ENV,
} from './model/memory-check';
export {
  DEFAULT_LORA,
  LORA_THRESHOLD_PARAMS,
  type LoadedModel,
  type LoadModelOptions,
  loadModel,
  loadRunOrModel,
  loraOf,
  type ModelKind,
  modelKindOf,
} from './model/policy-model';
export {
  type ServeOptions,
  servedModelOf,
  serveModel,
} from './model/serve';
export {
  EXPERIMENT_RESULTS_FORMAT,
  type ExperimentReportFiles,
  type ExperimentResultsV1,
  type ExperimentRowV1,
  experimentResults,
  type SummaryAggregateV1,
  suiteTable,
  writeExperimentReport,
} from './report/experiment-report';
export { renderPng } from './report/png';
export {
  type OpponentReferenceV1,
  type ReferenceValuesV1,
  referenceValues,
} from './report/reference-values';
export {
  type ReportFiles,
  type RunData,
  readRun,
  skippedLinesWarning,
  writeReport,
} from './report/run-report';
export {
  type Chart,
  chartGrid,
  escapeXml,
  vegaChart,
} from './report/svg-chart';
export {
  ensureWarmStart,
  plannedWarmStart,
  type TrainPipelineOptions,
  type TrainPipelineResult,
  trainConfigOf,
  trainPipeline,
} from './train/train';
export {
  DEFAULT_CACHE_DIR,
  type PretrainEnvResult,
  type PretrainOptions,
  type PretrainProgress,
  type PretrainResult,
  pretrainMageTiny,
  warmStartDir,
  warmStartKey,
} from './warm-start/pretrain';
export {
  assertWarmStartTeacher,
  type EnvPlan,
  envPlans,
  type TeacherCorpus,
  teacherCorpus,
  type WarmStartLayout,
} from './warm-start/warm-start-corpus';
export {
  chunksOf,
  type EpochPlan,
  epochPlan,
  type LossPoint,
  type TrainingSet,
  trainEpochs,
  trainingSet,
  warmStartSchedule,
} from './warm-start/warm-start-training';
