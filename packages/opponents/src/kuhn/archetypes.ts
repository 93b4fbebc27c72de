/**
 * The scripted Kuhn Poker archetypes of the training population (conservative, aggressive, intermediate;
 * their rules are in `RULES` below). They read only their own card and the betting history from the
 * observed state (`kuhnGame.observe`), and expose their policy for exact best-response analysis.
 */

import { type KuhnAction, type KuhnCard, type KuhnState, kuhnGame } from '@mage-rl/envs/kuhn-poker';
import { InvalidArgumentError } from '@mage-rl/spec';
import { type PolicyOpponentV1, policyOpponent } from '../strategy/policy-opponent';
import type { PolicyFn } from '../strategy/strategy';

export type KuhnArchetype = 'conservative' | 'aggressive' | 'intermediate';
export const KUHN_ARCHETYPES: readonly KuhnArchetype[] = ['conservative', 'aggressive', 'intermediate'];

/** `[P(PASS), P(BET)]`, the order of `kuhnGame.legalActions` after the deal. */
const PASS: readonly number[] = [1, 0];
const BET: readonly number[] = [0, 1];

/** The acting player's own card in a (possibly observed) state. */
export function ownKuhnCard(state: KuhnState, player: number): KuhnCard {
  const card = state.cards?.[player === 1 ? 1 : 0] ?? null;
  if (card === null) {
    throw new InvalidArgumentError(
      `Kuhn player ${player} has no card in state '${kuhnGame.stateKey(state)}'.`,
    );
  }
  return card;
}

/** Whether the player to move faces a bet (history ends with a bet). */
export function facingBet(state: KuhnState): boolean {
  return state.history.endsWith('b');
}

const RULES: Readonly<Record<KuhnArchetype, (card: KuhnCard, facing: boolean) => readonly number[]>> = {
  // Bet or call only with a King.
  conservative: (card) => (card === 'K' ? BET : PASS),
  // Bet whenever no bet was made; facing a bet, fold a Jack and call with a Queen or King.
  aggressive: (card, facing) => (!facing ? BET : card === 'J' ? PASS : BET),
  // King bets/calls, Jack passes/folds, Queen bets first and folds facing a bet.
  intermediate: (card, facing) => (card === 'K' ? BET : card === 'J' ? PASS : facing ? PASS : BET),
};

/** The archetype's policy as a function of the observed state. */
export function kuhnArchetypePolicy(archetype: KuhnArchetype): PolicyFn<KuhnState> {
  const rule = RULES[archetype];
  return (state, player) => rule(ownKuhnCard(state, player), facingBet(state));
}

export function kuhnArchetypeOpponent(archetype: KuhnArchetype): PolicyOpponentV1<KuhnState, KuhnAction> {
  if (!KUHN_ARCHETYPES.includes(archetype)) {
    throw new InvalidArgumentError(
      `Unknown Kuhn archetype '${archetype}'; known: ${KUHN_ARCHETYPES.join(', ')}.`,
    );
  }
  return policyOpponent({
    id: archetype,
    game: kuhnGame,
    policy: kuhnArchetypePolicy(archetype),
    play: 'argmax',
  });
}
