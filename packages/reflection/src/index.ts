export {
  type ContextMemorySpec,
  createContextMemory,
  type LayoutOptions,
  type RetrievalSlot,
} from './memory/context-memory';
export { type ForeignNoteV1, withForeignNotes } from './memory/foreign-notes';
export { createMemory, MEMORY_MODES, type MemoryMode, type MemoryOptions, NOTE_MODES } from './memory/modes';
export { COMPACT_VOCABULARY, outcomePhrase, reflectInstruction, resultWord } from './prompts/phrases';
export { type AMemMemory, type AMemNote, type AMemOptions, createAMemMemory } from './retrieval/a-mem';
export { contentWords, cosine, type FeatureBag, keywords, words } from './retrieval/lexical';
export {
  caseFromAttempt,
  createMementoMemory,
  type MementoCase,
  type MementoMemory,
  type MementoOptions,
} from './retrieval/memento';
export { type RetrievalOptions, retrievalK, type StoredAttemptContext } from './retrieval/retrieval-options';
export { type ExtractedRemark, extractAction, extractRemark, MAX_NOTE_CHARS } from './tags';
