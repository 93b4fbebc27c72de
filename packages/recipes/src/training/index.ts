export { toJsonObject } from './config-json';
export {
  makeAdvantageColumnFn,
  type TrainingOptionsOfArgs,
  trainingEvaluationOf,
  trainingOptionsOf,
} from './training-options';
