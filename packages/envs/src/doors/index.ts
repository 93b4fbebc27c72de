export { doorsLevels, type HiddenTargetLevels } from '../hidden-target';
export {
  createDoors,
  DOORS_ENV_ID,
  DOORS_PRIZE_REWARD,
  type DoorsEnv,
  type DoorsOptions,
  type DoorsResolvedOptions,
  doorsOptionsSchema,
} from './env';
export {
  DOORS_MAX,
  DOORS_MIN,
  type DoorsAction,
  type DoorsState,
  doorsGame,
  doorsKey,
  doorsWon,
  initialDoorsState,
} from './game';
export {
  DOORS_RESULT_WORDS,
  doorsEvent,
  doorsRules,
  formatDoorsAction,
  parseDoorsAction,
  parseDoorsEvent,
  renderDoors,
} from './text';
