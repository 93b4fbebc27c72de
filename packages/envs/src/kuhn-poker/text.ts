/** The Kuhn Poker text face: the agent's card and the betting so far, and the PASS/BET parser. */

import type { ParsedAction, PromptStyle } from '@mage-rl/spec';
import { excerpt, firstActionBlock } from '../text/action-tag';
import {
  isKuhnTerminalHistory,
  type KuhnBettingAction,
  type KuhnCard,
  type KuhnState,
  kuhnPayoff,
} from './game';

const CARD_NAME: Readonly<Record<KuhnCard, string>> = { J: 'Jack (J)', Q: 'Queen (Q)', K: 'King (K)' };

/** `check`/`bet`/`fold`/`call` for action `i` of `history`. */
function actionWord(history: string, i: number): string {
  const facingBet = history.slice(0, i).includes('b');
  return history[i] === 'b' ? (facingBet ? 'called' : 'bet') : facingBet ? 'folded' : 'checked';
}

/** The betting so far from the agent's point of view. */
export function describeHistory(history: string, agent: number, style: PromptStyle): string {
  if (style === 'compact') {
    if (history === '') return 'none';
    return [...history]
      .map((ch, i) => `${i % 2 === agent ? 'you' : 'opp'} ${ch === 'b' ? 'BET' : 'PASS'}`)
      .join(' ');
  }
  if (history === '') return 'no actions yet';
  return [...history]
    .map((_, i) => `${i % 2 === agent ? 'you' : 'the opponent'} ${actionWord(history, i)}`)
    .join(', ');
}

/** The agent's chips won (negative: lost) at a terminal state. */
export function agentPayoff(state: KuhnState, agent: number): number {
  const p = kuhnPayoff(state);
  return agent === 0 ? p : -p;
}

export function renderKuhnState(state: KuhnState, agent: number, style: PromptStyle): string {
  const card = state.cards?.[agent] ?? null;
  const h = state.history;
  const over = isKuhnTerminalHistory(h);
  if (style === 'compact') {
    const head = `card ${card ?? '?'}\nhistory ${describeHistory(h, agent, style)}`;
    if (over) {
      const p = agentPayoff(state, agent);
      return `${head}\nend you ${p > 0 ? `+${p}` : String(p)}`;
    }
    return head;
  }
  const lines = [`Your card: ${card ? CARD_NAME[card] : 'unknown'}. The opponent's card is hidden.`];
  lines.push(`Betting so far: ${describeHistory(h, agent, style)}.`);
  if (over) {
    const p = agentPayoff(state, agent);
    lines.push(
      `The hand is over: you ${p > 0 ? 'won' : 'lost'} ${Math.abs(p)} chip${Math.abs(p) === 1 ? '' : 's'}.`,
    );
  } else {
    const facing = h.includes('b');
    lines.push(
      facing
        ? 'The opponent has bet. Answer PASS to fold or BET to call.'
        : 'No bet yet. Answer PASS to check or BET to bet 1 chip.',
    );
  }
  return lines.join('\n');
}

export function kuhnRules(style: PromptStyle, maxTurns: number, chipReward: number, agent: number): string {
  if (style === 'compact') {
    return `kuhn poker . cards J < Q < K . ante 1 . PASS or BET . higher card wins showdown . you act ${agent === 0 ? 'first' : 'second'} . answer <action> PASS </action> or <action> BET </action>`;
  }
  return [
    'You are playing Kuhn Poker against an opponent. The deck has three cards: Jack (J) < Queen (Q) < King (K).',
    `Each player antes 1 chip and gets one card; the third card is unseen. ${agent === 0 ? 'You act first.' : 'The opponent acts first, then you.'}`,
    'Actions: PASS (check, or fold when facing a bet) and BET (bet 1 chip, or call when facing a bet).',
    'If both check, or a bet is called, the higher card wins the pot (1 or 2 chips from the opponent). If a player folds to a bet, the bettor wins 1 chip.',
    `Your reward is ${chipReward} × the chips you win or lose. You have at most ${maxTurns} turns; an unreadable answer wastes a turn.`,
    'Answer with exactly one action inside action tags: <action>PASS</action> or <action>BET</action>.',
  ].join('\n');
}

const KUHN_ACTION_RE = /^\s*(pass|bet)\s*$/i;

/** Parse exactly `PASS` or `BET` (any letter case) inside the first `<action>` block. Never throws. */
export function parseKuhnAction(text: string): ParsedAction<KuhnBettingAction> {
  const block = firstActionBlock(text);
  if (!block.ok) return { valid: false, reason: block.reason };
  const m = KUHN_ACTION_RE.exec(block.body);
  if (!m)
    return { valid: false, reason: `expected PASS or BET, got <action>${excerpt(block.body)}</action>` };
  const action: KuhnBettingAction = m[1]!.toUpperCase() === 'BET' ? 'BET' : 'PASS';
  return { valid: true, action, text: action };
}

export function formatKuhnAction(action: string, style: PromptStyle): string {
  return style === 'compact' ? `<action> ${action} </action>` : `<action>${action}</action>`;
}

export { actionWord as kuhnActionWord };

/** What one of the env's history lines says: the betting actions in order (`b`/`p`) and the hand's chips. */
export interface KuhnEventFacts {
  /** The actions the line reports, both players', in order (the whole betting when the line is a hand's). */
  readonly history: string;
  /** The agent's chips when the line ends the hand, else null. */
  readonly chips: number | null;
}

const ACTION_WORDS: Readonly<Record<string, 'b' | 'p'>> = {
  BET: 'b',
  PASS: 'p',
  bet: 'b',
  called: 'b',
  checked: 'p',
  folded: 'p',
};

/** Reads a history line of the env (either style); an invalid turn's line reports no action. */
export function parseKuhnEvent(event: string): KuhnEventFacts {
  const history = [...event.matchAll(/\b(?:you|opp|opponent) (BET|PASS|bet|called|checked|folded)\b/gi)]
    .map((m) => ACTION_WORDS[m[1] as string] ?? '')
    .join('');
  const compact = /\. you ([+-]\d+)$/.exec(event);
  const verbose = /You (won|lost) (\d+) chips?\.$/.exec(event);
  const chips = compact
    ? Number(compact[1])
    : verbose
      ? (verbose[1] === 'won' ? 1 : -1) * Number(verbose[2])
      : null;
  return { history, chips };
}
