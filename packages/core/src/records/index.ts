export type {
  AttemptRecord,
  GroupRecord,
  MetaEpisodeBatchRecord,
  RowRecord,
  SlotRecord,
  TaskRecord,
} from './records';
