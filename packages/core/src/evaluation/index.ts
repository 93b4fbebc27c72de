export { type EvaluateOptions, type EvaluationResultV1, evaluate } from './evaluate';
