export {
  type OpponentSourceOptions,
  RolloutFailureError,
  type RunMetaEpisodesOptions,
  type RunnerEvent,
  type RunnerEventType,
  type SeatOption,
} from './options';
export { iterateMetaEpisodes, runMetaEpisodes } from './run-meta-episodes';
