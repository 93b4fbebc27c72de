export {
  doorsLevels,
  type GridProbe,
  type HiddenTargetLevels,
  hiddenTargetLevels,
  memorylessPassAtK,
  noRepeatPassAtK,
  type TreasurePlan,
  treasureLevels,
  treasurePlan,
} from './ceiling';
