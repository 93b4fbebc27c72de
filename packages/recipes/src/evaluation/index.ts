export {
  type ConfigEvaluationV1,
  type EvaluateConfigOptions,
  type EvaluateMethodOptions,
  type EvaluationSuiteV1,
  evalPlayOptions,
  evaluateConfig,
  evaluateMethod,
  evaluationSuites,
  type MethodEvaluationV1,
} from './evaluate-method';
