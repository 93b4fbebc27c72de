/**
 * Strategies of extensive-form games: a plain-JSON table (information-state key → action key →
 * probability) for users, and dense `Float64Array` profiles indexed by the game tree's strategy slots for
 * the solvers.
 */

import { type GameModelV1, InvalidArgumentError } from '@mage-rl/spec';
import type { GameTree } from '../game-tree/game-tree';

/** Information-state key → action key → probability. JSON-safe. */
export type TabularStrategy = Readonly<Record<string, Readonly<Record<string, number>>>>;

/**
 * A behaviour policy as a function: the probabilities of `game.legalActions(state)` (same order) for
 * `player`. `state` is what the player may see (`game.observe(state, player)` when the game defines it).
 */
export type PolicyFn<S> = (state: S, player: number) => readonly number[];

/** Either form. */
export type StrategyInput<S> = TabularStrategy | PolicyFn<S>;

/**
 * A dense profile: one probability per strategy slot of `tree`, covering both players' information sets.
 * Information sets missing from a table get the uniform distribution.
 */
export function profileOf<S, A>(tree: GameTree<S, A>, strategy: StrategyInput<S>): Float64Array {
  const profile = new Float64Array(tree.numSlots);
  for (let info = 0; info < tree.numInfoSets; info++) {
    const offset = tree.infoOffset[info]!;
    const n = tree.infoNumActions[info]!;
    const probs = probabilitiesAt(tree, info, strategy);
    let total = 0;
    for (let j = 0; j < n; j++) {
      const p = probs[j] ?? 0;
      if (!(p >= 0) || !Number.isFinite(p)) {
        throw new InvalidArgumentError(
          `Strategy probability ${p} at '${tree.infoKey[info]}' is not a finite non-negative number.`,
        );
      }
      profile[offset + j] = p;
      total += p;
    }
    if (Math.abs(total - 1) > 1e-6) {
      throw new InvalidArgumentError(
        `Strategy probabilities at '${tree.infoKey[info]}' sum to ${total}, not 1.`,
        { context: { infoKey: tree.infoKey[info], total } },
      );
    }
  }
  return profile;
}

function probabilitiesAt<S, A>(tree: GameTree<S, A>, info: number, strategy: StrategyInput<S>): number[] {
  const n = tree.infoNumActions[info]!;
  if (typeof strategy === 'function') {
    const node = tree.infoNodes[info]![0]!;
    const player = tree.infoPlayer[info]!;
    const state = tree.states[node]!;
    const seen = tree.game.observe ? tree.game.observe(state, player) : state;
    const probs = strategy(seen, player);
    if (probs.length !== n) {
      throw new InvalidArgumentError(
        `Policy returned ${probs.length} probabilities at '${tree.infoKey[info]}', expected ${n}.`,
      );
    }
    return [...probs];
  }
  const row = strategy[tree.infoKey[info]!];
  if (!row) return Array.from({ length: n }, () => 1 / n);
  return tree.infoActionKeys[info]!.map((k) => row[k] ?? 0);
}

/** The table of the information sets of `players` (default both) in a dense profile. */
export function tableOf<S, A>(
  tree: GameTree<S, A>,
  profile: Float64Array,
  players: readonly number[] = [0, 1],
): TabularStrategy {
  const out: Record<string, Record<string, number>> = {};
  for (let info = 0; info < tree.numInfoSets; info++) {
    if (!players.includes(tree.infoPlayer[info]!)) continue;
    const offset = tree.infoOffset[info]!;
    const row: Record<string, number> = {};
    tree.infoActionKeys[info]!.forEach((k, j) => {
      row[k] = profile[offset + j]!;
    });
    out[tree.infoKey[info]!] = row;
  }
  return out;
}

/** A `PolicyFn` reading a table by `game.informationStateKey` (uniform where the table has no row). */
export function tablePolicy<S, A>(game: GameModelV1<S, A>, table: TabularStrategy): PolicyFn<S> {
  return (state, player) => {
    const actions = game.legalActions(state);
    const key = game.informationStateKey ? game.informationStateKey(state, player) : game.stateKey(state);
    const row = table[key];
    if (!row) return actions.map(() => 1 / actions.length);
    return actions.map((a) => row[game.actionKey(a)] ?? 0);
  };
}

/** Index of the most likely action; ties go to the earliest action. */
export function argmaxIndex(probs: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < probs.length; i++) {
    if (probs[i]! > probs[best]! + 1e-12) best = i;
  }
  return best;
}
