export { type FirstIssue, firstIssue, type IssuesLike, showValue } from './first-issue';
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
} from './mage-error';
