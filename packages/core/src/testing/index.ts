export {
  assertEnvConformance,
  CONFORMANCE_CHECKS,
  type ConformanceCheck,
  type ConformanceCheckName,
  type ConformanceOptions,
  checkEnvConformance,
  GARBAGE_RESPONSES,
} from './conformance';
export { EXAMPLE_MACHINE } from './machine-fixtures';
export { createNimEnv, type NimAction, type NimOptions, type NimState, nimGame, parseNimAction } from './nim';
export { nimOpponents, nimPileOf } from './nim-fixtures';
export { rowRecord } from './records';
export { constantPolicy, firstLegalOpponent, randomLegalOpponent, scriptedPolicy } from './scripted';
export {
  createTabularLearner,
  decodePromptKey,
  encodePromptKey,
  type TabularLearner,
  type TabularLearnerOptions,
} from './tabular-learner';
