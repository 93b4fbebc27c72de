/** Tag extraction for model responses: `<remark>` notes, `<action>` moves. Never throws, on any input. */

/** Longest note kept from a reflection (characters). */
export const MAX_NOTE_CHARS = 2000;

export interface ExtractedRemark {
  /** Text between the last `<remark>` and its `</remark>`, trimmed, at most `MAX_NOTE_CHARS`. */
  readonly note: string;
  /** False when no complete `<remark>…</remark>` block exists (the note is then empty). */
  readonly found: boolean;
}

/**
 * The note of a reflect response: the last complete `<remark>…</remark>` block (the last `</remark>`
 * and the last `<remark>` before it), trimmed and cut to `maxChars`.
 */
export function extractRemark(text: unknown, maxChars: number = MAX_NOTE_CHARS): ExtractedRemark {
  if (typeof text !== 'string') return { note: '', found: false };
  const close = text.lastIndexOf('</remark>');
  if (close < 0) return { note: '', found: false };
  const open = text.lastIndexOf('<remark>', close - 1);
  if (open < 0 || open + '<remark>'.length > close) return { note: '', found: false };
  const inner = text.slice(open + '<remark>'.length, close).trim();
  return {
    note: inner.length > maxChars ? inner.slice(0, Math.max(0, maxChars)).trimEnd() : inner,
    found: true,
  };
}

/** Content of the first `<action>…</action>` block, untrimmed; `null` when there is none. */
export function extractAction(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  const open = text.indexOf('<action>');
  if (open < 0) return null;
  const start = open + '<action>'.length;
  const close = text.indexOf('</action>', start);
  return close < 0 ? null : text.slice(start, close);
}
