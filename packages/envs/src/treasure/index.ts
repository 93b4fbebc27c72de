export { type HiddenTargetLevels, type TreasurePlan, treasureLevels, treasurePlan } from '../hidden-target';
export {
  createTreasure,
  TREASURE_ENV_ID,
  TREASURE_FOUND_REWARD,
  type TreasureEnv,
  type TreasureOptions,
  type TreasureResolvedOptions,
  treasureOptionsSchema,
} from './env';
export {
  type AxisHint,
  applyTreasure,
  initialTreasureState,
  TREASURE_MAX_SIZE,
  TREASURE_MIN_SIZE,
  type TreasureAction,
  type TreasureHint,
  type TreasureState,
  treasureGame,
  treasureHint,
  treasureKey,
} from './game';
export {
  formatTreasureAction,
  parseTreasureAction,
  parseTreasureEvent,
  renderTreasure,
  TREASURE_HINT_WORDS,
  type TreasureProbeFacts,
  treasureCellText,
  treasureEvent,
  treasureHintText,
  treasureRules,
} from './text';
