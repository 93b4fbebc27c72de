export {
  addWords,
  BASE_VOCABULARY_ENV_IDS,
  collectVocabulary,
  compactBaseVocabulary,
  compactVocabulary,
  ENV_COMPACT_WORDS,
  knownOpponentIds,
  sortWords,
} from './vocabulary';
