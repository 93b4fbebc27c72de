export {
  type OpponentSourceOptions,
  RolloutFailureError,
  type RolloutFailureOptions,
  type RunMetaEpisodesOptions,
  type RunnerEvent,
  type RunnerEventType,
  type SeatOption,
  type UnsteppedTurn,
} from './options';
export { iterateMetaEpisodes, runMetaEpisodes } from './run-meta-episodes';
