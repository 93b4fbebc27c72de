/**
 * The fixed wording of prompts in both styles. `verbose` is natural language for instruction
 * models; `compact` uses only the words of `COMPACT_VOCABULARY` (plus numbers and the env's own text) so
 * a tiny word-level tokenizer can read it.
 */

import type { AttemptOutcome, MemoryAttemptV1, MemoryStepV1, PromptStyle } from '@mage-rl/spec';

/** Every word the compact scaffolding may use (env text, notes and numbers come on top). */
export const COMPACT_VOCABULARY: readonly string[] = [
  'start',
  'memory',
  'attempt',
  'of',
  'won',
  'lost',
  'draw',
  'result',
  'note',
  'history',
  'turn',
  'state',
  'now',
  'end',
  'reflect',
  'why',
  'plan',
  'next',
  'answer',
  'cases',
  'case',
  'notes',
  'opponent',
  'moves',
  'invalid',
  'none',
  'show',
  ':',
  '.',
  ',',
  '->',
  '/',
  '<remark>',
  '</remark>',
];

/** Short result word of an outcome: `won`, `draw` or `lost` (truncated and deadlocked attempts are lost). */
export function resultWord(outcome: AttemptOutcome): 'won' | 'draw' | 'lost' {
  return outcome.success ? 'won' : outcome.draw ? 'draw' : 'lost';
}

export function outcomePhrase(outcome: AttemptOutcome, style: PromptStyle): string {
  if (style === 'compact') return `result : ${resultWord(outcome)}`;
  return outcome.success ? 'Result: it was won.' : `Result: it was not won (${outcome.label}).`;
}

/** One-line summary of a finished attempt (transcript replays of notes-only memories). */
export function attemptSummary(
  attempt: number,
  attempts: number,
  outcome: AttemptOutcome,
  style: PromptStyle,
): string {
  if (style === 'compact')
    return `attempt ${attempt + 1} / ${attempts} end . ${outcomePhrase(outcome, style)}`;
  return `Attempt ${attempt + 1} of ${attempts} has finished. ${outcomePhrase(outcome, style)}`;
}

export function attemptHeading(attempt: number, attempts: number, style: PromptStyle): string {
  return style === 'compact'
    ? `attempt ${attempt + 1} / ${attempts}`
    : `Attempt ${attempt + 1} of ${attempts}.`;
}

export function rulesAndStart(rules: string, initialText: string, style: PromptStyle): string {
  return style === 'compact'
    ? `${rules}\nstart :\n${initialText}`
    : `${rules}\n\nInitial state:\n${initialText}`;
}

export function currentStateBlock(observation: string, style: PromptStyle): string {
  return style === 'compact' ? `state now :\n${observation}` : `Current state:\n${observation}`;
}

/** One history line of a play step; with `withState`, the state the agent acted from comes first. */
export function stepLine(step: MemoryStepV1, withState: boolean, style: PromptStyle): string {
  const n = step.turn + 1;
  if (style === 'compact') {
    const move = step.valid ? step.event : `invalid : ${step.event}`;
    return withState
      ? `turn ${n} state :\n${step.observation}\nturn ${n} -> ${move}`
      : `turn ${n} -> ${move}`;
  }
  const move = step.valid ? step.event : `invalid answer (${step.event})`;
  return withState ? `Turn ${n}, state:\n${step.observation}\nTurn ${n}: ${move}` : `Turn ${n}: ${move}`;
}

/** The note line of an earlier attempt (`reflection` memory). */
export function noteLine(attempt: MemoryAttemptV1, style: PromptStyle): string {
  const note = attempt.reflection?.note ?? '';
  if (style === 'compact') {
    return `attempt ${attempt.attempt + 1} ${resultWord(attempt.outcome)} . note : ${note || 'none'}`;
  }
  const result = attempt.outcome.success ? 'was won' : 'was not won';
  return `Attempt ${attempt.attempt + 1} ${result}; your note: ${note || '(none)'}`;
}

/** The whole history of an earlier attempt (`history` memory). */
export function attemptHistory(attempt: MemoryAttemptV1, style: PromptStyle, withStates = false): string {
  const lines = attempt.steps.map((s) => stepLine(s, withStates, style));
  if (attempt.reveal) lines.push(attempt.reveal);
  if (style === 'compact') {
    return [
      `attempt ${attempt.attempt + 1} history :`,
      ...lines,
      `attempt ${attempt.attempt + 1} ${outcomePhrase(attempt.outcome, style)}`,
    ].join('\n');
  }
  return [`Attempt ${attempt.attempt + 1} (${attempt.outcome.label}):`, ...lines].join('\n');
}

export function memoryHeading(style: PromptStyle): string {
  return style === 'compact' ? 'memory :' : 'Your earlier attempts at this same task:';
}

export function historyHeading(style: PromptStyle): string {
  return style === 'compact' ? 'history :' : 'Recent history of this attempt:';
}

/** The instruction that ends every reflect prompt. */
export function reflectInstruction(outcome: AttemptOutcome, style: PromptStyle): string {
  if (style === 'compact') {
    return outcome.success
      ? 'reflect : why won , plan next . answer <remark> note </remark>'
      : 'reflect : why lost , plan next . answer <remark> note </remark>';
  }
  const diagnose = outcome.success
    ? 'Note what worked, so the next attempt can repeat or improve it.'
    : 'Diagnose why it was not won: what the opponent or the environment did, and which of your moves went wrong.';
  return `${diagnose} Then plan what to do differently in the next attempt, which starts from the same initial state. Keep it short and concrete. Write your note inside <remark>...</remark>.`;
}

/** Heading of the finished attempt in a reflect prompt. */
export function finishedHeading(attempt: number, attempts: number, style: PromptStyle): string {
  return style === 'compact'
    ? `attempt ${attempt + 1} / ${attempts} end . history :`
    : `Attempt ${attempt + 1} of ${attempts} has finished. Its full history:`;
}
