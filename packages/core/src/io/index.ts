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
