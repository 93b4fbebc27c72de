export {
  addWords,
  collectVocabulary,
  compactBaseVocabulary,
  compactRulesTexts,
  compactVocabulary,
  ENV_COMPACT_WORDS,
  knownOpponentIds,
  OUTCOME_LABELS,
  sortWords,
} from './vocabulary';
