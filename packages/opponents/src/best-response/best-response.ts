/**
 * Exact policy evaluation, best responses and exploitability for two-player zero-sum extensive-form
 * games (OpenSpiel conventions: NashConv = Σ_p (BR value_p − value_p); exploitability = NashConv / 2).
 */

import { type GameModelV1, InvalidArgumentError } from '@mage-rl/spec';
import {
  type GameTree,
  gameTreeOf,
  NODE_CHANCE,
  NODE_TERMINAL,
  nodeValues,
  reachProbabilities,
} from '../game-tree/game-tree';
import { profileOf, type StrategyInput, type TabularStrategy, tableOf } from '../strategy/strategy';

/** Expected returns `[player 0, player 1]` of a dense profile. */
export function profileValues<S, A>(tree: GameTree<S, A>, profile: Float64Array): [number, number] {
  const value = new Float64Array(tree.numNodes);
  nodeValues(tree, profile, 1, value);
  const v0 = value[0]!;
  return [v0, -v0];
}

export interface ProfileBestResponse {
  /** Expected return of the best responder against the fixed profile. */
  readonly value: number;
  /**
   * The profile with the responder's information sets replaced by the (pure) best response; the other
   * player's sets are unchanged.
   */
  readonly profile: Float64Array;
}

/**
 * Exact best response of `responder` to the other player's part of `profile`. Ties go to the earliest
 * legal action (PASS in Kuhn Poker); information sets the fixed strategy never lets the responder reach
 * also get their first action.
 */
export function profileBestResponse<S, A>(
  tree: GameTree<S, A>,
  profile: Float64Array,
  responder: number,
): ProfileBestResponse {
  if (responder !== 0 && responder !== 1) {
    throw new InvalidArgumentError(`The best-responding player must be 0 or 1, got ${responder}.`);
  }
  const { numNodes, kind, player, infoSet, infoOffset, childStart, childCount, edgeChild, edgeProb } = tree;
  const { utility, infoNodes, numInfoSets } = tree;
  const sign = responder === 0 ? 1 : -1;
  // Reach probability of every node through chance and the fixed player only.
  const reach = new Float64Array(numNodes);
  reachProbabilities(tree, profile, responder, new Float64Array(numNodes), reach);
  const value = new Float64Array(numNodes);
  const done = new Uint8Array(numNodes);
  const choice = new Int32Array(numInfoSets).fill(-1);

  // Perfect recall makes this recursion well-founded: an information set's choice only depends on the
  // responder's later information sets.
  const bestAction = (info: number): number => {
    const known = choice[info]!;
    if (known >= 0) return known;
    const n = tree.infoNumActions[info]!;
    let best = 0;
    let bestValue = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < n; j++) {
      let total = 0;
      for (const node of infoNodes[info]!) {
        const r = reach[node]!;
        if (r === 0) continue;
        total += r * nodeValue(edgeChild[childStart[node]! + j]!);
      }
      if (total > bestValue + 1e-12) {
        bestValue = total;
        best = j;
      }
    }
    choice[info] = best;
    return best;
  };

  const nodeValue = (i: number): number => {
    if (done[i] === 1) return value[i]!;
    const k = kind[i]!;
    let v = 0;
    if (k === NODE_TERMINAL) {
      v = sign * utility[i]!;
    } else {
      const start = childStart[i]!;
      const end = start + childCount[i]!;
      if (k === NODE_CHANCE) {
        for (let e = start; e < end; e++) v += edgeProb[e]! * nodeValue(edgeChild[e]!);
      } else if (player[i] === responder) {
        v = nodeValue(edgeChild[start + bestAction(infoSet[i]!)]!);
      } else {
        const o = infoOffset[infoSet[i]!]! - start;
        for (let e = start; e < end; e++) {
          const p = profile[o + e]!;
          if (p > 0) v += p * nodeValue(edgeChild[e]!);
        }
      }
    }
    value[i] = v;
    done[i] = 1;
    return v;
  };

  const rootValue = nodeValue(0);
  const out = Float64Array.from(profile);
  for (let info = 0; info < numInfoSets; info++) {
    if (tree.infoPlayer[info] !== responder) continue;
    const best = bestAction(info);
    const o = infoOffset[info]!;
    const n = tree.infoNumActions[info]!;
    for (let j = 0; j < n; j++) out[o + j] = j === best ? 1 : 0;
  }
  return { value: rootValue, profile: out };
}

/** NashConv of a dense profile: Σ_p (best-response value of p − value of p). */
export function profileNashConv<S, A>(tree: GameTree<S, A>, profile: Float64Array): number {
  const [v0, v1] = profileValues(tree, profile);
  const b0 = profileBestResponse(tree, profile, 0).value;
  const b1 = profileBestResponse(tree, profile, 1).value;
  return b0 - v0 + (b1 - v1);
}

export interface StrategyQuery<S, A> {
  readonly game: GameModelV1<S, A>;
  /** The root state (Kuhn Poker: the chance node before the deal). */
  readonly root: S;
  /** Both players' strategies (a table or a policy function). */
  readonly strategy: StrategyInput<S>;
}

/** Expected returns `[player 0, player 1]` when both players follow `strategy`. */
export function expectedReturns<S, A>(query: StrategyQuery<S, A>): [number, number] {
  const tree = gameTreeOf(query.game, query.root);
  return profileValues(tree, profileOf(tree, query.strategy));
}

export interface BestResponseResult {
  /** Expected return (game units per game, e.g. chips per hand) of the best responder. */
  readonly value: number;
  /** The responder's pure best-response strategy (its information sets only). */
  readonly strategy: TabularStrategy;
}

/** The exact best response of `player` to the other player's part of `strategy`. */
export function bestResponse<S, A>(
  query: StrategyQuery<S, A> & { readonly player: number },
): BestResponseResult {
  const tree = gameTreeOf(query.game, query.root);
  const result = profileBestResponse(tree, profileOf(tree, query.strategy), query.player);
  return { value: result.value, strategy: tableOf(tree, result.profile, [query.player]) };
}

/** NashConv (OpenSpiel): the sum over players of what a best response gains over the profile. */
export function nashConv<S, A>(query: StrategyQuery<S, A>): number {
  const tree = gameTreeOf(query.game, query.root);
  return profileNashConv(tree, profileOf(tree, query.strategy));
}

/** Exploitability (OpenSpiel convention): NashConv / 2. Zero exactly at a Nash equilibrium. */
export function exploitability<S, A>(query: StrategyQuery<S, A>): number {
  return nashConv(query) / 2;
}
