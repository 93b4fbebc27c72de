export { createLocalRunner, type GraphRunner, type RunnerOptions } from './runner';
export {
  createOrtSession,
  type Feeds,
  type Fetched,
  type OrtSession,
  type SessionOptions,
  type TensorArray,
  type TensorValue,
  toOrtTensor,
} from './session';
