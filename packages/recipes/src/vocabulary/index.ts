export {
  addWords,
  collectVocabulary,
  compactBaseVocabulary,
  compactVocabulary,
  ENV_COMPACT_WORDS,
  knownOpponentIds,
  sortWords,
} from './vocabulary';
