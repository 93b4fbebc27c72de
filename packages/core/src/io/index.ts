export {
  appendFileDurable,
  fsyncDir,
  pathExists,
  readJsonFile,
  removeDirAtomic,
  removeTempEntries,
  TEMP_PREFIX,
  tempSibling,
  writeDirAtomic,
  writeFileAtomic,
  writeJsonAtomic,
} from './atomic';
export {
  type JsonFileSpec,
  jsonDepth,
  MAX_JSON_DEPTH,
  parseJsonChecked,
  readJsonChecked,
  readJsonCheckedSync,
} from './read-checked';
export { storedPath } from './stored-path';
