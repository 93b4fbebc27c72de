// `@mage-rl/trainer/internals`: the building blocks `createTrainer` and `runExperiment` are made of, for
// benchmarks and tests that drive one phase on its own. Not a stable API (architecture/trainer.md,
// "Building blocks").

export {
  type EvaluatePolicyOptions,
  evaluatePolicy,
} from './evaluate/evaluate-policy';
export { type LoadPolicyOptions, loadPolicy, trainedWith } from './evaluate/load-policy';
export { type EvaluateWithMemoryOptions, evaluateWithMemory } from './evaluate/memory-benefit';
export {
  EXPERIMENT_EVAL_FORMAT,
  evalPath,
  readExperimentEvals,
  readExperimentRecord,
} from './experiment/experiment';
export {
  checkExperiment,
  checkExperimentInputs,
  type ExperimentPolicy,
  experimentPolicies,
  FOREIGN_NOTES,
  fileLabel,
  policyConfig,
  policyMemories,
  WARM_START,
} from './experiment/experiment-spec';
export { callLines, experimentReferences } from './report/experiment-dir-report';
export { writeExperimentReport } from './report/experiment-report';
export {
  EXPERIMENT_RESULTS_FORMAT,
  experimentResults,
  type SummaryAggregateV1,
} from './report/experiment-results';
export { suiteTable } from './report/experiment-tables';
export { type OpponentReferenceV1, type ReferenceValuesV1, referenceValues } from './report/reference-values';
export { memoryLimitsOfConfig } from './train/memory-limits';
export {
  RESUME_SAFE_CONFIG_PATHS,
  type TrainPipelineOptions,
  trainConfigOf,
  trainPipeline,
} from './train/train';
export { type PretrainOptions, pretrainMageTiny } from './warm-start/pretrain';
export { buildMageTinyTokenizer } from './warm-start/tokenizer';
export {
  cachedWarmStart,
  checkModelDir,
  ensureWarmStart,
  type PretrainOrReuseOptions,
  plannedWarmStart,
  pretrainOrReuse,
  type ResolvedWarmStart,
  resolveWarmStart,
  type WarmStartRequest,
  warmStartDir,
  warmStartKey,
} from './warm-start/warm-start';
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
