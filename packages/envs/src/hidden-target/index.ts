export {
  doorsLevels,
  type FirstProbeLevels,
  type GridProbe,
  type HiddenTargetLevels,
  hiddenTargetLevels,
  memorylessPassAtK,
  noRepeatPassAtK,
  type TreasurePlan,
  treasureFirstProbes,
  treasureLevels,
  treasurePlan,
  treasureProbeOutcome,
} from './ceiling';
