// The documented API: createTrainer (warm start, train, evaluate, load a policy, report) and
// runExperiment. The other exports are the building blocks the `mage` command prints around.

export {
  type EvaluatePolicyOptions,
  evaluatePolicy,
  type PolicyEvaluationV1,
  type ReturnUnitV1,
  returnBenefit,
  returnsIn,
} from './evaluate/evaluate-policy';
export { type LoadedPolicy, type LoadPolicyOptions, loadPolicy, trainedWith } from './evaluate/load-policy';
export {
  type EvaluateWithMemoryOptions,
  evaluateWithMemory,
  type MemoryEvaluationV1,
} from './evaluate/memory-benefit';
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
export { callLines, experimentReferences, reportExperiment } from './report/experiment-dir-report';
export {
  EXPERIMENT_RESULTS_FORMAT,
  type ExperimentReportFiles,
  type ExperimentResultsV1,
  type ExperimentRowV1,
  experimentResults,
  type SummaryAggregateV1,
  signed,
  suiteTable,
  writeExperimentReport,
} from './report/experiment-report';
export { renderPng } from './report/png';
export {
  ceilingShare,
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
export { memoryLimitsOfConfig } from './train/memory-limits';
export {
  ensureWarmStart,
  plannedWarmStart,
  RESUME_SAFE_CONFIG_PATHS,
  type TrainPipelineOptions,
  type TrainPipelineResult,
  trainConfigOf,
  trainPipeline,
} from './train/train';
export {
  createTrainer,
  type EvaluateOptions,
  type Trainer,
  type TrainerConfig,
  type TrainOptions,
} from './trainer/trainer';
export {
  cachedWarmStart,
  DEFAULT_CACHE_DIR,
  type PretrainEnvResult,
  type PretrainOptions,
  type PretrainProgress,
  type PretrainResult,
  pretrainMageTiny,
  warmStartDir,
  warmStartKey,
  warmStartOverridesOf,
} from './warm-start/pretrain';
export { buildMageTinyTokenizer } from './warm-start/tokenizer';
export {
  assertWarmStartTeacher,
  type EnvPlan,
  envPlans,
  type TeacherCorpus,
  teacherCorpus,
  type WarmStartLayout,
} from './warm-start/warm-start-corpus';
export {
  type EpochCall,
  type EpochPlan,
  epochPlan,
  type LossPoint,
  type TrainingSet,
  tokenSteps,
  trainEpochs,
  trainingSet,
  warmStartSchedule,
} from './warm-start/warm-start-training';
