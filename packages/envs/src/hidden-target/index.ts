export {
  doorsLevels,
  type GridProbe,
  type HiddenTargetLevels,
  memorylessPassAtK,
  noRepeatPassAtK,
  type TreasurePlan,
  treasureLevels,
  treasurePlan,
} from './ceiling';
