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
} from './env';
export type * from './env-definition';
export { CHANCE_PLAYER, type ChanceOutcome, type GameModelV1, TERMINAL_PLAYER } from './game-model';
export type {
  LearnerRowV1,
  LearnerUpdateRequest,
  LearnerUpdateResult,
  LearnerV1,
  TokenLossFn,
  TokenLossInput,
  TokenLossOutput,
} from './learner';
export type { OpponentContext, OpponentFactory, OpponentV1 } from './opponent';
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
} from './policy';
