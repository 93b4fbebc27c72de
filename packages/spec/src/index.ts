export { at } from './arrays/at';
export { type FirstIssue, firstIssue, type IssuesLike, showValue } from './errors/first-issue';
export {
  AbortedError,
  CheckpointError,
  ConfigError,
  ConformanceError,
  type ErrorContext,
  InvalidArgumentError,
  IoError,
  MageError,
  type MageErrorCode,
  type MageErrorJSON,
  type MageErrorOptions,
  NumericInstabilityError,
  RolloutError,
  throwIfAborted,
  UnknownIdError,
} from './errors/mage-error';
export {
  type AttemptOutcome,
  type EnvEpisodeV1,
  type EnvObservationV1,
  type EnvStepV1,
  type EnvTaskV1,
  type EnvV1,
  type ParsedAction,
  PROMPT_STYLES,
  type PromptStyle,
  playAnchor,
  reflectAnchor,
  type Seat,
} from './interfaces/env';
export type * from './interfaces/env-definition';
export {
  CHANCE_PLAYER,
  type ChanceOutcome,
  type GameModelV1,
  TERMINAL_PLAYER,
} from './interfaces/game-model';
export type * from './interfaces/learner';
export type { OpponentContext, OpponentFactory, OpponentV1 } from './interfaces/opponent';
export type { PlayAgentV1 } from './interfaces/play-agent';
export type {
  ChatMessage,
  ChatRole,
  FinishedAttemptFactsV1,
  PolicyFactsV1,
  PolicyRequestV1,
  PolicyResponseV1,
  PolicyV1,
  SamplingOptions,
  TurnPhase,
} from './interfaces/policy';
export { isJsonSafe, type JsonObject, type JsonPrimitive, type JsonValue, valueAt } from './json/json';
export {
  CONTEXT_LAYOUTS,
  type ContextLayout,
  type MemoryAttemptV1,
  type MemoryPlayViewV1,
  type MemoryReflectionV1,
  type MemoryReflectViewV1,
  type MemorySlotInfoV1,
  type MemorySlotV1,
  type MemoryStepV1,
  type MemoryV1,
  type MemoryViewV1,
  messagesToText,
  type ParsedReflectionV1,
  PLAY_STOP,
  REFLECT_STOP,
} from './memory/memory';
export {
  assignOpponents,
  createPopulation,
  fixedPopulation,
  type PopulationEntry,
  type PopulationMode,
  type PopulationV1,
} from './population/population';
export type {
  AttemptRecord,
  GroupRecord,
  MetaEpisodeBatchRecord,
  RowRecord,
  SlotRecord,
  TaskRecord,
} from './records/records';
export type { Rng, RngState } from './rng/rng';
