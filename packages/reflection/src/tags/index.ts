export { type ExtractedRemark, extractAction, extractRemark, MAX_NOTE_CHARS } from './tags';
