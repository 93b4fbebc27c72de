export {
  createLocalRunner,
  createWorkerRunner,
  type GraphRunner,
  type KvRowRef,
  type KvScatter,
  type LoadOptions,
  type PersistentOptions,
  type RunnerOptions,
  type RunOptions,
} from './runner';
export {
  SESSION_LOAD_CHANNEL,
  SESSION_RUN_CHANNEL,
  type SessionLoadEvent,
  type SessionRunEvent,
} from './runner-events';
export {
  createOrtSession,
  defaultThreads,
  type Feeds,
  type Fetched,
  type OrtSession,
  ortSessionOptions,
  runtimeVersions,
  type SessionOptions,
  type TensorArray,
  type TensorValue,
  toOrtTensor,
} from './session';
export {
  createSessionCache,
  DEFAULT_MAX_SESSION_BYTES,
  DEFAULT_MAX_SESSIONS,
  type SessionCache,
  type SessionCacheLimits,
  UNKNOWN_SESSION_BYTES,
} from './session-cache';
