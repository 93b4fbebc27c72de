export {
  makeAdvantageColumnFn,
  type TrainingOptionsOfArgs,
  trainingEvaluationOf,
  trainingOptionsOf,
} from './training-options';
