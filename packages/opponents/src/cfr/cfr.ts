/**
 * Counterfactual regret minimisation over any two-player zero-sum extensive-form `GameModelV1`.
 *
 * - `cfr`: vanilla CFR with alternating updates, regret matching and uniform averaging.
 * - `cfr+`: regret matching+ (regrets floored at 0 after every update), alternating updates and linear
 *   averaging (iteration t weighs t), as OpenSpiel's `CFRPlusSolver`.
 *
 * One iteration updates player 0 then player 1; player 1's pass sees player 0's new strategy. Every pass
 * is a forward loop (reach probabilities) and two backward loops (values, then regrets) over the flat game
 * tree; regrets, strategies and sums live in `Float64Array`s indexed by precomputed information-set slots.
 */

import { type GameModelV1, InvalidArgumentError, throwIfAborted } from '@mage-rl/spec';
import {
  type GameTree,
  gameTreeOf,
  NODE_PLAYER,
  nodeValues,
  reachProbabilities,
} from '../game-tree/game-tree';
import { type TabularStrategy, tableOf } from '../strategy/strategy';

export type CfrAlgorithm = 'cfr' | 'cfr+';
export const CFR_ALGORITHMS: readonly CfrAlgorithm[] = ['cfr', 'cfr+'];

export interface CfrSolverOptions<S, A> {
  readonly game: GameModelV1<S, A>;
  /** The root state (for Kuhn Poker the chance node before the deal). */
  readonly root: S;
  /** Default `cfr`. */
  readonly algorithm?: CfrAlgorithm;
}

/** A long-lived CFR engine: call `run` as often as you like, read strategies at any time. */
export interface CfrSolver<S, A> {
  readonly algorithm: CfrAlgorithm;
  readonly tree: GameTree<S, A>;
  /** Iterations done so far (each updates both players). */
  readonly iterations: number;
  run(iterations: number, signal?: AbortSignal): void;
  /** The average strategy as a dense profile over `tree`'s slots (a fresh copy). */
  averageProfile(): Float64Array;
  /** The current (regret-matching) strategy as a dense profile (a fresh copy). */
  currentProfile(): Float64Array;
  averageStrategy(): TabularStrategy;
  currentStrategy(): TabularStrategy;
}

export function createCfrSolver<S, A>(options: CfrSolverOptions<S, A>): CfrSolver<S, A> {
  const algorithm = options.algorithm ?? 'cfr';
  if (!CFR_ALGORITHMS.includes(algorithm)) {
    throw new InvalidArgumentError(
      `Unknown CFR algorithm '${algorithm}'; use ${CFR_ALGORITHMS.join(' or ')}.`,
    );
  }
  const plus = algorithm === 'cfr+';
  const tree = gameTreeOf(options.game, options.root);
  const buffers = cfrBuffers(tree);
  let iterations = 0;
  regretMatch(tree, buffers, 0);
  regretMatch(tree, buffers, 1);

  const averageProfile = (): Float64Array => averageOf(tree, buffers.strategySum);

  return {
    algorithm,
    tree,
    get iterations() {
      return iterations;
    },
    run(count, signal) {
      if (!Number.isInteger(count) || count < 0) {
        throw new InvalidArgumentError(`CFR iterations must be a non-negative integer, got ${count}.`);
      }
      for (let t = 0; t < count; t++) {
        if ((t & 1023) === 0) throwIfAborted(signal);
        iterations++;
        const weight = plus ? iterations : 1;
        updatePlayer(tree, buffers, 0, weight, plus);
        updatePlayer(tree, buffers, 1, weight, plus);
      }
    },
    averageProfile,
    currentProfile: () => Float64Array.from(buffers.sigma),
    averageStrategy: () => tableOf(tree, averageProfile()),
    currentStrategy: () => tableOf(tree, buffers.sigma),
  };
}

/** The solver's working arrays: per strategy slot (regret, strategy sum, current strategy) and per node. */
interface CfrBuffers {
  readonly regret: Float64Array;
  readonly strategySum: Float64Array;
  /** The current (regret-matching) strategy. */
  readonly sigma: Float64Array;
  /** Reach probability of every node through the updating player's own actions. */
  readonly reachOwn: Float64Array;
  /** Reach probability of every node through chance and the other player. */
  readonly reachOther: Float64Array;
  /** Value of every node for the updating player. */
  readonly value: Float64Array;
}

function cfrBuffers<S, A>(tree: GameTree<S, A>): CfrBuffers {
  return {
    regret: new Float64Array(tree.numSlots),
    strategySum: new Float64Array(tree.numSlots),
    sigma: new Float64Array(tree.numSlots),
    reachOwn: new Float64Array(tree.numNodes),
    reachOther: new Float64Array(tree.numNodes),
    value: new Float64Array(tree.numNodes),
  };
}

/** Regret matching: player `p`'s current strategy proportional to its positive regrets (uniform if none). */
function regretMatch<S, A>(tree: GameTree<S, A>, { regret, sigma }: CfrBuffers, p: number): void {
  const { numInfoSets, infoPlayer, infoOffset, infoNumActions } = tree;
  for (let info = 0; info < numInfoSets; info++) {
    if (infoPlayer[info] !== p) continue;
    const o = infoOffset[info]!;
    const n = infoNumActions[info]!;
    let total = 0;
    for (let j = 0; j < n; j++) {
      const r = regret[o + j]!;
      if (r > 0) total += r;
    }
    if (total > 0) {
      for (let j = 0; j < n; j++) {
        const r = regret[o + j]!;
        sigma[o + j] = r > 0 ? r / total : 0;
      }
    } else {
      for (let j = 0; j < n; j++) sigma[o + j] = 1 / n;
    }
  }
}

/** One update of player `p`: reach, values, regrets and strategy sums, then a new current strategy. */
function updatePlayer<S, A>(
  tree: GameTree<S, A>,
  buffers: CfrBuffers,
  p: number,
  weight: number,
  plus: boolean,
): void {
  reachProbabilities(tree, buffers.sigma, p, buffers.reachOwn, buffers.reachOther);
  nodeValues(tree, buffers.sigma, p === 0 ? 1 : -1, buffers.value);
  accumulateRegrets(tree, buffers, p, weight);
  if (plus) floorRegrets(tree, buffers.regret, p);
  regretMatch(tree, buffers, p);
}

/**
 * Counterfactual regrets and strategy sums at player `p`'s nodes, from the values of `nodeValues` and the
 * reach of `reachProbabilities` (nodes in reverse pre-order, as the value pass).
 */
function accumulateRegrets<S, A>(tree: GameTree<S, A>, buffers: CfrBuffers, p: number, weight: number): void {
  const { numNodes, kind, player, infoSet, infoOffset, childStart, childCount, edgeChild } = tree;
  const { regret, strategySum, sigma, reachOwn, reachOther, value } = buffers;
  for (let i = numNodes - 1; i >= 0; i--) {
    if (kind[i] !== NODE_PLAYER || player[i] !== p) continue;
    const start = childStart[i]!;
    const end = start + childCount[i]!;
    const o = infoOffset[infoSet[i]!]! - start;
    const v = value[i]!;
    const cf = reachOther[i]!;
    const ownWeight = weight * reachOwn[i]!;
    for (let e = start; e < end; e++) {
      regret[o + e] = regret[o + e]! + cf * (value[edgeChild[e]!]! - v);
      strategySum[o + e] = strategySum[o + e]! + ownWeight * sigma[o + e]!;
    }
  }
}

/** CFR+: player `p`'s regrets floored at 0. */
function floorRegrets<S, A>(tree: GameTree<S, A>, regret: Float64Array, p: number): void {
  const { numInfoSets, infoPlayer, infoOffset, infoNumActions } = tree;
  for (let info = 0; info < numInfoSets; info++) {
    if (infoPlayer[info] !== p) continue;
    const o = infoOffset[info]!;
    const end = o + infoNumActions[info]!;
    for (let s = o; s < end; s++) if (regret[s]! < 0) regret[s] = 0;
  }
}

/** The average strategy: strategy sums normalised per information set (uniform where the sum is 0). */
function averageOf<S, A>(tree: GameTree<S, A>, strategySum: Float64Array): Float64Array {
  const { numInfoSets, infoOffset, infoNumActions } = tree;
  const out = new Float64Array(tree.numSlots);
  for (let info = 0; info < numInfoSets; info++) {
    const o = infoOffset[info]!;
    const n = infoNumActions[info]!;
    let total = 0;
    for (let j = 0; j < n; j++) total += strategySum[o + j]!;
    for (let j = 0; j < n; j++) out[o + j] = total > 0 ? strategySum[o + j]! / total : 1 / n;
  }
  return out;
}
