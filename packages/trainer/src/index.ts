// The documented API: createTrainer (warm start, train, evaluate, load a policy, report), runExperiment
// and reportExperiment, reading and reporting runs (their records and models), the dashboard's play agent, and what `mage` prints
// with them. The building blocks are `@mage-rl/trainer/internals` (architecture/trainer.md).

export type { EvaluationV1, ReturnUnitV1 } from './evaluate/evaluate-policy';
export { returnBenefit, returnsIn } from './evaluate/evaluate-policy';
export type { ForeignNoteSwapsV1 } from './evaluate/foreign-notes';
export type { LoadedPolicy } from './evaluate/load-policy';
export type { MemoryEvaluationV1 } from './evaluate/memory-benefit';
export { playAgentOf } from './evaluate/play-agent';
export {
  type ExperimentCallV1,
  type ExperimentEvalV1,
  type ExperimentOptions,
  type ExperimentRecordV1,
  runExperiment,
} from './experiment/experiment';
export {
  EVAL_MEMORIES,
  type EvalMemory,
  type EvalProtocol,
  EXPERIMENT_FORMAT,
  type ExperimentSpecV1,
  type GridAxis,
} from './experiment/experiment-spec';
export { reportExperiment } from './report/experiment-dir-report';
export type { ExperimentReportFiles } from './report/experiment-report';
export type {
  BenefitVersus,
  ExperimentResultsV1,
  ExperimentRowV1,
  MemoryBenefitV1,
  WarmStartComparisonV1,
} from './report/experiment-results';
export { signed, swapsText } from './report/experiment-tables';
export { ceilingShare } from './report/reference-values';
export {
  type ReportFiles,
  type RunData,
  readRun,
  skippedLinesWarning,
  writeReport,
} from './report/run-report';
export { modelSourceOf, type RunRecordV1, readRunRecord } from './run-record/run-record';
export type { TrainPipelineResult as TrainResultV1 } from './train/train';
export {
  createTrainer,
  EVALUATE_DEFAULTS,
  type EvaluateOptions,
  type Trainer,
  type TrainerConfig,
  type TrainerEvent,
  type TrainOptions,
  type WarmStartOptions,
  type WarmStartV1,
} from './trainer/trainer';
export {
  noteRecallWarning,
  type PretrainEnvResult,
  type PretrainProgress,
  type PretrainResult,
} from './warm-start/pretrain';
export { DEFAULT_CACHE_DIR, warmStartOverridesOf } from './warm-start/warm-start';
