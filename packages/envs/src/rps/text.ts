/**
 * The Rock-Paper-Scissors text face: a throw is `<action>rock</action>` (`paper`, `scissors`; the letters
 * `R`, `P`, `S` and any letter case parse too); each round's line names both throws and its result
 * (`you rock opp paper loss`), the observation shows the throw to come and this attempt's rounds so far, and
 * a finished attempt reveals all its rounds on one line (`rpsRoundsLine`).
 */

import type { ParsedAction, PromptStyle } from '@mage-rl/spec';
import { excerpt, firstActionBlock } from '../text/action-tag';
import { RPS_THROWS, type RpsState, type RpsThrow, roundScore } from './game';

/** The result of a round for the agent, as its line names it. */
export const RPS_RESULT_WORDS = ['win', 'draw', 'loss'] as const;
export type RpsResult = (typeof RPS_RESULT_WORDS)[number];

export function rpsResult(mine: RpsThrow, theirs: RpsThrow): RpsResult {
  const score = roundScore(mine, theirs);
  return score > 0 ? 'win' : score < 0 ? 'loss' : 'draw';
}

export function rpsRules(throws: number, winReward: number, style: PromptStyle): string {
  if (style === 'compact') {
    return `rock paper scissors . ${throws} throws . rock beats scissors . scissors beats paper . paper beats rock . win every throw . answer <action> throw </action>`;
  }
  const rounds = throws === 1 ? 'one throw' : `${throws} throws`;
  return [
    `You play rock-paper-scissors against an opponent, ${rounds} per attempt; you both throw at the same time.`,
    'Rock beats scissors, scissors beat paper, paper beats rock; the same throw is a draw.',
    'The opponent follows a fixed rule that may depend on the throws so far in the attempt. It starts afresh in every attempt and its rule stays the same in every attempt.',
    `Each throw you win scores ${winReward}; the attempt is won when you win every throw.`,
    'Answer with one throw inside action tags, for example <action>rock</action>.',
  ].join('\n');
}

/** A round's line: `you rock opp paper loss` (compact) or a sentence. */
export function rpsEvent(mine: RpsThrow, theirs: RpsThrow, style: PromptStyle): string {
  const result = rpsResult(mine, theirs);
  if (style === 'compact') return `you ${mine} opp ${theirs} ${result}`;
  const verdict = result === 'win' ? 'you win' : result === 'loss' ? 'you lose' : 'a draw';
  return `You threw ${mine}, the opponent threw ${theirs}: ${verdict}.`;
}

/** The agent's rounds of the attempt, its throws (player 0) against the opponent's (player 1). */
function rounds(s: RpsState): [RpsThrow, RpsThrow][] {
  return s.played[1].map((theirs, i): [RpsThrow, RpsThrow] => [s.played[0][i]!, theirs]);
}

/**
 * The throw to come (or `end`) and this attempt's rounds so far:
 * `throw 2 of 3 . you rock opp paper loss` (compact) or sentences.
 */
export function renderRps(s: RpsState, style: PromptStyle): string {
  const played = rounds(s);
  const next = played.length + 1;
  if (style === 'compact') {
    const head = next > s.throws ? 'end' : `throw ${next} of ${s.throws}`;
    return [head, ...played.map(([m, t]) => rpsEvent(m, t, style))].join(' . ');
  }
  const head = next > s.throws ? 'All throws of this attempt are made.' : `Throw ${next} of ${s.throws}.`;
  if (played.length === 0) return `${head} No throws yet in this attempt.`;
  return `${head} So far: ${played.map(([m, t]) => rpsEvent(m, t, style)).join(' ')}`;
}

/**
 * The attempt's rounds on one line, once it is over (the env's `reveal`): `end . you rock opp paper loss .
 * you paper opp scissors win` (compact; a finished attempt's state as `renderRps` shows it) or sentences;
 * `undefined` before any round was played (an attempt of invalid answers only).
 */
export function rpsRoundsLine(s: RpsState, style: PromptStyle): string | undefined {
  const played = rounds(s);
  if (played.length === 0) return undefined;
  const lines = played.map(([m, t]) => rpsEvent(m, t, style));
  return style === 'compact' ? ['end', ...lines].join(' . ') : `This attempt's throws: ${lines.join(' ')}`;
}

export function formatRpsAction(t: RpsThrow, style: PromptStyle): string {
  return style === 'compact' ? `<action> ${t} </action>` : `<action>${t}</action>`;
}

const THROW_RE = /^\s*(rock|paper|scissors|r|p|s)\s*$/i;

/** Parse exactly one throw inside the first `<action>` block. Never throws. */
export function parseRpsAction(text: string): ParsedAction<RpsThrow> {
  const block = firstActionBlock(text);
  if (!block.ok) return { valid: false, reason: block.reason };
  const m = THROW_RE.exec(block.body);
  if (!m) {
    return {
      valid: false,
      reason: `expected rock, paper or scissors, got <action>${excerpt(block.body)}</action>`,
    };
  }
  const first = m[1]!.toLowerCase()[0];
  const t = RPS_THROWS.find((x) => x[0] === first) ?? 'rock';
  return { valid: true, action: t, text: t };
}

/** A round read back from one of the env's lines: both throws. */
export interface RpsRoundFacts {
  readonly mine: RpsThrow;
  readonly theirs: RpsThrow;
}

const COMPACT_EVENT = /\byou (rock|paper|scissors) opp (rock|paper|scissors)\b/;
const VERBOSE_EVENT = /\bYou threw (rock|paper|scissors), the opponent threw (rock|paper|scissors)\b/;

/** The round of a line of either style; `null` for other lines (an invalid turn's). */
export function parseRpsEvent(event: string): RpsRoundFacts | null {
  const m = COMPACT_EVENT.exec(event) ?? VERBOSE_EVENT.exec(event);
  return m ? { mine: m[1] as RpsThrow, theirs: m[2] as RpsThrow } : null;
}
