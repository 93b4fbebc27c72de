/**
 * Counterfactual regret minimisation over any two-player zero-sum extensive-form `GameModelV1`.
 *
 * - `cfr`: vanilla CFR with alternating updates, regret matching and uniform averaging.
 * - `cfr+`: regret matching+ (regrets floored at 0 after every update), alternating updates and linear
 *   averaging (iteration t weighs t), as OpenSpiel's `CFRPlusSolver`.
 *
 * One iteration updates player 0 then player 1; player 1's pass sees player 0's new strategy. Every pass
 * is a forward loop (reach probabilities) and a backward loop (values, regrets) over the flat game tree;
 * regrets, strategies and sums live in `Float64Array`s indexed by precomputed information-set slots.
 */

import { type GameModelV1, InvalidArgumentError, throwIfAborted } from '@mage-rl/core';
import { type GameTree, gameTreeOf, NODE_CHANCE, NODE_TERMINAL } from '../game-tree/game-tree';
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
  const { numNodes, kind, player, infoSet, childStart, childCount, edgeChild, edgeProb, utility } = tree;
  const { numInfoSets, infoPlayer, infoOffset, infoNumActions, numSlots } = tree;
  const regret = new Float64Array(numSlots);
  const strategySum = new Float64Array(numSlots);
  const sigma = new Float64Array(numSlots);
  const reachOwn = new Float64Array(numNodes);
  const reachOther = new Float64Array(numNodes);
  const value = new Float64Array(numNodes);
  let iterations = 0;

  const regretMatch = (p: number): void => {
    for (let info = 0; info < numInfoSets; info++) {
      if (infoPlayer[info] !== p) continue;
      const o = infoOffset[info] as number;
      const n = infoNumActions[info] as number;
      let total = 0;
      for (let j = 0; j < n; j++) {
        const r = regret[o + j] as number;
        if (r > 0) total += r;
      }
      if (total > 0) {
        for (let j = 0; j < n; j++) {
          const r = regret[o + j] as number;
          sigma[o + j] = r > 0 ? r / total : 0;
        }
      } else {
        for (let j = 0; j < n; j++) sigma[o + j] = 1 / n;
      }
    }
  };
  regretMatch(0);
  regretMatch(1);

  const update = (p: number, weight: number): void => {
    reachOwn[0] = 1;
    reachOther[0] = 1;
    for (let i = 0; i < numNodes; i++) {
      const k = kind[i] as number;
      if (k === NODE_TERMINAL) continue;
      const start = childStart[i] as number;
      const end = start + (childCount[i] as number);
      const own = reachOwn[i] as number;
      const other = reachOther[i] as number;
      if (k === NODE_CHANCE) {
        for (let e = start; e < end; e++) {
          const c = edgeChild[e] as number;
          reachOwn[c] = own;
          reachOther[c] = other * (edgeProb[e] as number);
        }
      } else {
        const o = (infoOffset[infoSet[i] as number] as number) - start;
        if (player[i] === p) {
          for (let e = start; e < end; e++) {
            const c = edgeChild[e] as number;
            reachOwn[c] = own * (sigma[o + e] as number);
            reachOther[c] = other;
          }
        } else {
          for (let e = start; e < end; e++) {
            const c = edgeChild[e] as number;
            reachOwn[c] = own;
            reachOther[c] = other * (sigma[o + e] as number);
          }
        }
      }
    }
    const sign = p === 0 ? 1 : -1;
    for (let i = numNodes - 1; i >= 0; i--) {
      const k = kind[i] as number;
      if (k === NODE_TERMINAL) {
        value[i] = sign * (utility[i] as number);
        continue;
      }
      const start = childStart[i] as number;
      const end = start + (childCount[i] as number);
      let v = 0;
      if (k === NODE_CHANCE) {
        for (let e = start; e < end; e++)
          v += (edgeProb[e] as number) * (value[edgeChild[e] as number] as number);
        value[i] = v;
        continue;
      }
      const o = (infoOffset[infoSet[i] as number] as number) - start;
      for (let e = start; e < end; e++)
        v += (sigma[o + e] as number) * (value[edgeChild[e] as number] as number);
      value[i] = v;
      if (player[i] === p) {
        const cf = reachOther[i] as number;
        const ownWeight = weight * (reachOwn[i] as number);
        for (let e = start; e < end; e++) {
          regret[o + e] = (regret[o + e] as number) + cf * ((value[edgeChild[e] as number] as number) - v);
          strategySum[o + e] = (strategySum[o + e] as number) + ownWeight * (sigma[o + e] as number);
        }
      }
    }
    if (plus) {
      for (let info = 0; info < numInfoSets; info++) {
        if (infoPlayer[info] !== p) continue;
        const o = infoOffset[info] as number;
        const end = o + (infoNumActions[info] as number);
        for (let s = o; s < end; s++) if ((regret[s] as number) < 0) regret[s] = 0;
      }
    }
    regretMatch(p);
  };

  const averageProfile = (): Float64Array => {
    const out = new Float64Array(numSlots);
    for (let info = 0; info < numInfoSets; info++) {
      const o = infoOffset[info] as number;
      const n = infoNumActions[info] as number;
      let total = 0;
      for (let j = 0; j < n; j++) total += strategySum[o + j] as number;
      for (let j = 0; j < n; j++) out[o + j] = total > 0 ? (strategySum[o + j] as number) / total : 1 / n;
    }
    return out;
  };

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
        update(0, weight);
        update(1, weight);
      }
    },
    averageProfile,
    currentProfile: () => Float64Array.from(sigma),
    averageStrategy: () => tableOf(tree, averageProfile()),
    currentStrategy: () => tableOf(tree, sigma),
  };
}
