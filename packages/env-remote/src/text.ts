/** Text helpers of the remote envs. None of them throws, whatever the input. */

/** Longest action text looked at; longer ones are refused without scanning. */
export const MAX_ACTION_CHARS = 1000;

/** The text between the first `<action>` and the next `</action>` (tags in any letter case), or why not. */
export function firstActionBody(
  text: unknown,
): { readonly ok: true; readonly body: string } | { readonly ok: false; readonly reason: string } {
  if (typeof text !== 'string') return { ok: false, reason: 'response is not text' };
  const open = /<action>/gi.exec(text);
  if (!open) return { ok: false, reason: 'no <action> tag found' };
  const from = open.index + open[0].length;
  const close = /<\/action>/gi;
  close.lastIndex = from;
  const end = close.exec(text);
  if (!end) return { ok: false, reason: 'no </action> after <action>' };
  const body = text.slice(from, end.index);
  if (body.length > MAX_ACTION_CHARS)
    return { ok: false, reason: `action longer than ${MAX_ACTION_CHARS} characters` };
  return { ok: true, body };
}

/** Lower case, trimmed, inner runs of white space as one space. */
export function normalizeCommand(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** A short single-line excerpt for reasons and events. */
export function shorten(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
