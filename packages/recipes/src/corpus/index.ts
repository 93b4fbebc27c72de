export {
  buildWarmStartCorpus,
  corpusTexts,
  type WarmStartCorpus,
  type WarmStartCorpusOptions,
  type WarmStartExample,
} from './build-corpus';
