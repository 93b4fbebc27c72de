/** The tabular learner's prompt keys travel as `promptTokens`: one token per UTF-16 code unit. */

/** Key text → prompt token ids (UTF-16 code units). */
export function encodePromptKey(key: string): number[] {
  const out = new Array<number>(key.length);
  for (let i = 0; i < key.length; i++) out[i] = key.charCodeAt(i);
  return out;
}

/** Prompt token ids → key text (the inverse of `encodePromptKey`). */
export function decodePromptKey(tokens: readonly number[]): string {
  let s = '';
  for (let i = 0; i < tokens.length; i += 4096) s += String.fromCharCode(...tokens.slice(i, i + 4096));
  return s;
}
