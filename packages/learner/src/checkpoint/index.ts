export {
  CHECKPOINT_FORMAT,
  type CheckpointData,
  type LoadedCheckpoint,
  loadCheckpoint,
  saveCheckpoint,
  writeFilesAtomic,
} from './checkpoint';
export {
  MAX_HEADER_BYTES,
  parseSafetensors,
  type SafetensorsDType,
  type SafetensorsEntry,
  type SafetensorsFile,
  serializeSafetensors,
  type TensorToWrite,
  toFloat32,
} from './safetensors';
