/** Helpers shared by the action parsers. None of them throws, whatever the input. */

const OPEN = '<action>';

/** Longest action body the parsers look at; longer bodies are rejected without scanning them. */
export const MAX_ACTION_BODY = 400;

export type ActionBlock =
  | { readonly ok: true; readonly body: string }
  | { readonly ok: false; readonly reason: string };

/**
 * The text between the first `<action>` and the first `</action>` after it (case-insensitive tags).
 * Linear in the input length.
 */
export function firstActionBlock(text: string): ActionBlock {
  if (typeof text !== 'string') return { ok: false, reason: 'response is not text' };
  // Regexes on the original text (not a lower-cased copy: lower-casing may change string length).
  const open = /<action>/gi;
  const m = open.exec(text);
  if (!m) return { ok: false, reason: 'no <action> tag found' };
  const start = m.index;
  const close = /<\/action>/gi;
  close.lastIndex = start + OPEN.length;
  const c = close.exec(text);
  if (!c) return { ok: false, reason: 'no </action> after <action>' };
  const end = c.index;
  const body = text.slice(start + OPEN.length, end);
  if (body.length > MAX_ACTION_BODY)
    return { ok: false, reason: `action body longer than ${MAX_ACTION_BODY} characters` };
  return { ok: true, body };
}

/** A short, single-line excerpt of model text for error reasons and events. */
export function excerpt(text: string, max = 40): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
