export {
  CHECKPOINT_FORMAT,
  type CheckpointData,
  checkCheckpointTensors,
  type LoadCheckpointOptions,
  type LoadedCheckpoint,
  type LoadedTensor,
  loadCheckpoint,
  saveCheckpoint,
  writeFilesAtomic,
} from './checkpoint';
export {
  MAX_HEADER_BYTES,
  parseSafetensors,
  readSafetensorsFile,
  type SafetensorsDType,
  type SafetensorsEntry,
  type SafetensorsFile,
  serializeSafetensors,
  type TensorToWrite,
  toFloat32,
} from './safetensors';
