/**
 * Templated *factual* reflection notes for the warm start: what happened in the finished attempt
 * — its result, every turn's move and the opponent's reply (the env's own history lines), and the revealed
 * cards — never strategic advice. When the env's reveal restates every line of the attempt, the note is the
 * result and the reveal. Compact notes use only `COMPACT_VOCABULARY` words, the env's compact
 * event words and numbers, so mage-tiny's word-level tokenizer covers them.
 */

import type { PromptStyle } from '@mage-rl/core';
import { resultWord } from '@mage-rl/reflection';
import type { FinishedFacts } from './teacher-policy';

/** What a note states besides the result: every turn's line and the reveal, or the reveal alone. */
export type NoteFacts = 'events' | 'reveal';

export interface FactualNoteOptions {
  /** 0-based index of the attempt that finished. */
  readonly attempt: number;
  readonly style: PromptStyle;
  /**
   * `events` (default): the turns' lines and the reveal (the reveal alone when it restates every line).
   * `reveal`: the reveal alone, for an env whose reveal says all a note needs (Tic-Tac-Toe's agent line
   * against a frozen opponent); the turns' lines when the attempt revealed nothing.
   */
  readonly facts?: NoteFacts;
}

/**
 * Whether the env's reveal restates the whole attempt: every event line, in order (Rock-Paper-Scissors'
 * rounds on one line). Such a note states the result and the reveal alone — one line of the reflect prompt
 * to copy instead of lines scattered over the attempt.
 */
export function revealStatesAttempt(finished: FinishedFacts): boolean {
  const reveal = finished.reveal;
  if (!reveal || finished.events.length === 0) return false;
  let from = 0;
  for (const event of finished.events) {
    const at = event.trim() === '' ? -1 : reveal.indexOf(event.trim(), from);
    if (at < 0) return false;
    from = at + event.trim().length;
  }
  return true;
}

/** The note body (without tags). */
export function factualNoteBody(finished: FinishedFacts, options: FactualNoteOptions): string {
  const n = options.attempt + 1;
  const result = resultWord(finished.outcome);
  const revealOnly = options.facts === 'reveal' ? Boolean(finished.reveal) : revealStatesAttempt(finished);
  const turns = revealOnly ? [] : finished.events;
  if (options.style === 'compact') {
    const parts = [`attempt ${n} ${result}`];
    turns.forEach((event, i) => {
      parts.push(`turn ${i + 1} -> ${event}`);
    });
    if (finished.reveal) parts.push(finished.reveal);
    return parts.join(' . ');
  }
  const verdict = result === 'won' ? 'was won' : result === 'draw' ? 'was a draw' : 'was lost';
  const parts = [`Attempt ${n} ${verdict} (${finished.outcome.label}).`];
  turns.forEach((event, i) => {
    const line = event.trim();
    parts.push(`Turn ${i + 1}: ${line}${/[.!?]$/.test(line) ? '' : '.'}`);
  });
  if (finished.reveal) parts.push(finished.reveal);
  return parts.join(' ');
}

/** The full reflect response: the note inside `<remark>…</remark>` in the style's spacing. */
export function factualNote(finished: FinishedFacts, options: FactualNoteOptions): string {
  const body = factualNoteBody(finished, options);
  return options.style === 'compact' ? `<remark> ${body} </remark>` : `<remark>${body}</remark>`;
}
