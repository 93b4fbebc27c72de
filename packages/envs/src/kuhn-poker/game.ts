/**
 * The Kuhn Poker game model. Cards J < Q < K, one each, one unseen; both players ante 1; player 0 acts
 * first. The root is a chance node dealing one of 6 equally likely ordered pairs (`deal:JQ` gives player
 * 0 the J and player 1 the Q). The betting history is a string of `p` (PASS: check/fold) and `b` (BET:
 * bet/call). Terminal histories: `pp`, `bb`, `pbb` (showdown for 1, 2, 2 chips), `bp` (player 1 folds),
 * `pbp` (player 0 folds).
 */

import {
  CHANCE_PLAYER,
  type ChanceOutcome,
  type GameModelV1,
  InvalidArgumentError,
  TERMINAL_PLAYER,
} from '@mage-rl/spec';

export type KuhnCard = 'J' | 'Q' | 'K';
export type KuhnDeal = `deal:${KuhnCard}${KuhnCard}`;
export type KuhnBettingAction = 'PASS' | 'BET';
export type KuhnAction = KuhnBettingAction | KuhnDeal;

export interface KuhnState {
  /** `[player 0's card, player 1's card]`; `null` before the deal. `observe` replaces hidden cards with `null`. */
  readonly cards: readonly [KuhnCard | null, KuhnCard | null] | null;
  /** Betting so far: `p` = PASS, `b` = BET. */
  readonly history: string;
}

export const KUHN_CARDS: readonly KuhnCard[] = ['J', 'Q', 'K'];
export const KUHN_DEALS: readonly KuhnDeal[] = [
  'deal:JQ',
  'deal:JK',
  'deal:QJ',
  'deal:QK',
  'deal:KJ',
  'deal:KQ',
];
export const KUHN_TERMINAL_HISTORIES: readonly string[] = ['pp', 'bb', 'pbb', 'bp', 'pbp'];

const RANK: Readonly<Record<KuhnCard, number>> = { J: 0, Q: 1, K: 2 };
const CHANCE: readonly ChanceOutcome<KuhnAction>[] = KUHN_DEALS.map((action) => ({
  action,
  probability: 1 / 6,
}));
const BETTING: readonly KuhnAction[] = ['PASS', 'BET'];
const NONE: readonly KuhnAction[] = [];

export function kuhnCardRank(card: KuhnCard): number {
  return RANK[card];
}

/** The state before the deal. */
export const KUHN_INITIAL_STATE: KuhnState = { cards: null, history: '' };

/** The state right after dealing `deal` (`'JQ'` or `'deal:JQ'`). */
export function kuhnDealt(deal: string): KuhnState {
  const d = deal.startsWith('deal:') ? deal.slice(5) : deal;
  if (!(KUHN_DEALS as readonly string[]).includes(`deal:${d}`)) {
    throw new InvalidArgumentError(`Unknown Kuhn deal '${deal}'; expected one of ${KUHN_DEALS.join(', ')}.`);
  }
  return { cards: [d[0] as KuhnCard, d[1] as KuhnCard], history: '' };
}

export function isKuhnTerminalHistory(history: string): boolean {
  return history === 'pp' || history === 'bb' || history === 'pbb' || history === 'bp' || history === 'pbp';
}

/** Chips won by player 0 at a terminal state (player 1 gets the negation). Needs both cards at showdown. */
export function kuhnPayoff(state: KuhnState): number {
  const h = state.history;
  if (h === 'bp') return 1;
  if (h === 'pbp') return -1;
  const stake = h === 'pp' ? 1 : h === 'bb' || h === 'pbb' ? 2 : 0;
  if (stake === 0) throw new InvalidArgumentError(`Kuhn history '${h}' is not terminal.`);
  const c0 = state.cards?.[0];
  const c1 = state.cards?.[1];
  if (!c0 || !c1) throw new InvalidArgumentError('Kuhn showdown needs both cards.');
  return RANK[c0] > RANK[c1] ? stake : -stake;
}

export function kuhnCurrentPlayer(state: KuhnState): number {
  if (state.cards === null) return CHANCE_PLAYER;
  if (isKuhnTerminalHistory(state.history)) return TERMINAL_PLAYER;
  return state.history.length % 2;
}

function applyKuhn(state: KuhnState, action: KuhnAction): KuhnState {
  if (state.cards === null) {
    if (!action.startsWith('deal:')) {
      throw new InvalidArgumentError(`Kuhn: the deal comes first, got '${action}'.`);
    }
    return kuhnDealt(action);
  }
  if (isKuhnTerminalHistory(state.history)) {
    throw new InvalidArgumentError(`Kuhn: no action after terminal history '${state.history}'.`);
  }
  if (action === 'PASS') return { cards: state.cards, history: `${state.history}p` };
  if (action === 'BET') return { cards: state.cards, history: `${state.history}b` };
  throw new InvalidArgumentError(`Kuhn: illegal action '${action}' after the deal.`);
}

function cardKey(card: KuhnCard | null): string {
  return card ?? '?';
}

export const kuhnGame: GameModelV1<KuhnState, KuhnAction> = {
  specificationVersion: 'v1',
  numPlayers: 2,
  currentPlayer: kuhnCurrentPlayer,
  legalActions: (s) => (s.cards === null ? KUHN_DEALS : isKuhnTerminalHistory(s.history) ? NONE : BETTING),
  chanceOutcomes: (s) => (s.cards === null ? CHANCE : []),
  apply: applyKuhn,
  isTerminal: (s) => s.cards !== null && isKuhnTerminalHistory(s.history),
  returns: (s) => {
    if (s.cards === null || !isKuhnTerminalHistory(s.history)) return [0, 0];
    const p = kuhnPayoff(s);
    return [p, -p];
  },
  informationStateKey: (s, player) => `${cardKey(s.cards?.[player === 1 ? 1 : 0] ?? null)}:${s.history}`,
  observe: (s, player) => {
    if (s.cards === null) return s;
    return {
      cards: player === 0 ? [s.cards[0], null] : [null, s.cards[1]],
      history: s.history,
    };
  },
  actionKey: (a) => a,
  stateKey: (s) => (s.cards === null ? '-:' : `${cardKey(s.cards[0])}${cardKey(s.cards[1])}:${s.history}`),
};
