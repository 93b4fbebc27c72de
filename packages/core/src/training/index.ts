export {
  type AttemptCreditV1,
  type CreditDiagnosticsV1,
  creditDiagnostics,
  type MomentsV1,
} from './credit-diagnostics';
export type {
  EvalStatsV1,
  MetricsLineV1,
  RolloutStatsV1,
  TrainingEvent,
  TrainingEventType,
  TrainingResultV1,
  UpdateStatsV1,
} from './events';
export { iterateTraining, runTraining } from './iterate-training';
export {
  checkResumeConfig,
  RESUME_SAFE_PATHS,
  type RunConfigRecordV1,
  readRunConfig,
  resumeDifferences,
} from './open-run';
export {
  type EvaluationSuiteOptions,
  type MemoryStateOptions,
  type ResolvedTrainingConfig,
  resolveTrainingOptions,
  TRAINING_DEFAULTS,
  type TrainingCheckpointOptions,
  type TrainingEvaluationOptions,
  type TrainingOptions,
  type TrainingRolloutOptions,
  type TrainingUpdateOptions,
  trainingConfigOf,
  validateTrainingOptions,
} from './options';
export {
  isPackedRow,
  joinSpanLogprobs,
  type LearnerInputRowV1,
  type LogprobRowV1,
  type PackedRows,
  type PackedRowV1,
  type PackedSpanV1,
  type PackRowsOptions,
  packRows,
  spansWithRef,
  unpackLogprobRows,
  unpackRow,
  unpackRows,
  validatePackedRow,
} from './packing';
export {
  EPISODES_FORMAT,
  type EpisodesRecordV1,
  episodesPath,
  REPLAY_EVAL_MAX,
  REPLAY_OBSERVATION_CHARS,
  REPLAY_RESPONSE_CHARS,
  REPLAY_TRAIN_SAMPLE,
  type ReplayEpisodeV1,
  type ReplayTurnV1,
  replayEpisodes,
  writeEpisodes,
} from './replay-record';
export {
  assertFreshRunDir,
  CHECKPOINT_STATE_FORMAT,
  type CheckpointRef,
  type CheckpointStateV1,
  checkpointName,
  latestCheckpoint,
  listCheckpoints,
  RUN_CONFIG_FORMAT,
  RUN_FILES,
  readCheckpointState,
  runPaths,
} from './run-dir';
export { lockRunDir, RUN_LOCK_FILE, type RunLock, runLockPath, withRunLock } from './run-lock';
export {
  RUN_MACHINES_FORMAT,
  type RunMachinesV1,
  type RunProcessV1,
  readRunMachines,
  recordRunProcess,
} from './run-machines';
export { type RunRecordV1, readRunRecord } from './run-record';
export { tokenLossInputOf } from './token-loss-input';
export { emptyUpdateTotals, type UpdateTotals, updateResultOf } from './update-totals';
