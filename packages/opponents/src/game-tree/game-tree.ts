/**
 * A two-player zero-sum extensive-form game (any `GameModelV1` with chance nodes and information-state
 * keys) unrolled once into flat typed arrays, so that CFR, best response and policy evaluation run as
 * loops over indices instead of recursions over states and string maps.
 *
 * Nodes are stored in depth-first pre-order: a parent always comes before its children, so one forward
 * loop propagates reach probabilities and one backward loop computes values.
 */

import { CHANCE_PLAYER, type GameModelV1, InvalidArgumentError } from '@mage-rl/core';

export const NODE_TERMINAL = 0;
export const NODE_CHANCE = 1;
export const NODE_PLAYER = 2;

export interface GameTree<S, A> {
  readonly game: GameModelV1<S, A>;
  readonly root: S;
  readonly numNodes: number;
  /** `NODE_TERMINAL`, `NODE_CHANCE` or `NODE_PLAYER` per node. */
  readonly kind: Int8Array;
  /** Acting player (0/1) at player nodes, −1 elsewhere. */
  readonly player: Int8Array;
  /** Information-set index at player nodes, −1 elsewhere. */
  readonly infoSet: Int32Array;
  /** Edges of node `i` are `childStart[i] .. childStart[i] + childCount[i] - 1`. */
  readonly childStart: Int32Array;
  readonly childCount: Int32Array;
  /** Child node of every edge. */
  readonly edgeChild: Int32Array;
  /** Chance probability of every chance edge (1 on player edges). */
  readonly edgeProb: Float64Array;
  /** Player 0's return at terminal nodes (player 1 gets the negation), 0 elsewhere. */
  readonly utility: Float64Array;
  /** The state of every node. */
  readonly states: readonly S[];
  /** The action of every edge. */
  readonly edgeAction: readonly A[];
  readonly numInfoSets: number;
  readonly infoKey: readonly string[];
  readonly infoPlayer: Int8Array;
  /** Strategy slots of information set `I` are `infoOffset[I] .. infoOffset[I] + infoNumActions[I] - 1`. */
  readonly infoOffset: Int32Array;
  readonly infoNumActions: Int32Array;
  readonly infoActions: readonly (readonly A[])[];
  readonly infoActionKeys: readonly (readonly string[])[];
  /** Nodes of every information set, in pre-order. */
  readonly infoNodes: readonly (readonly number[])[];
  /** Total strategy slots (sum of `infoNumActions`). */
  readonly numSlots: number;
  /** Information-set index by key and player (`"<player>|<key>"`). */
  readonly infoIndex: ReadonlyMap<string, number>;
}

export interface BuildGameTreeOptions<S, A> {
  readonly game: GameModelV1<S, A>;
  readonly root: S;
  /** Refuse trees larger than this (default 2,000,000 nodes). */
  readonly maxNodes?: number;
}

const TREE_CACHE = new WeakMap<object, Map<string, GameTree<unknown, unknown>>>();

/** `buildGameTree`, cached per game model object and root state key. */
export function gameTreeOf<S, A>(game: GameModelV1<S, A>, root: S): GameTree<S, A> {
  let byRoot = TREE_CACHE.get(game);
  if (!byRoot) {
    byRoot = new Map();
    TREE_CACHE.set(game, byRoot);
  }
  const key = game.stateKey(root);
  const cached = byRoot.get(key);
  if (cached) return cached as GameTree<S, A>;
  const tree = buildGameTree({ game, root });
  byRoot.set(key, tree as GameTree<unknown, unknown>);
  return tree;
}

/** Unrolls the whole game below `root`. Throws on non-zero-sum returns or inconsistent information sets. */
export function buildGameTree<S, A>(options: BuildGameTreeOptions<S, A>): GameTree<S, A> {
  const { game, root } = options;
  const maxNodes = options.maxNodes ?? 2_000_000;
  if (game.numPlayers !== 2) {
    throw new InvalidArgumentError(`Game trees need a two-player game, got ${game.numPlayers} players.`);
  }
  const kind: number[] = [];
  const player: number[] = [];
  const infoSet: number[] = [];
  const childStart: number[] = [];
  const childCount: number[] = [];
  const utility: number[] = [];
  const states: S[] = [];
  const edgeChild: number[] = [];
  const edgeProb: number[] = [];
  const edgeAction: A[] = [];
  const infoKey: string[] = [];
  const infoPlayer: number[] = [];
  const infoActions: A[][] = [];
  const infoActionKeys: string[][] = [];
  const infoNodes: number[][] = [];
  const infoIndex = new Map<string, number>();

  // Iterative pre-order DFS; edges of a node are reserved when the node is visited.
  const stack: { state: S; edge: number }[] = [{ state: root, edge: -1 }];
  while (stack.length > 0) {
    const { state, edge } = stack.pop() as { state: S; edge: number };
    const id = states.length;
    if (id >= maxNodes) {
      throw new InvalidArgumentError(`The game tree has more than ${maxNodes} nodes; raise maxNodes.`, {
        context: { maxNodes },
      });
    }
    if (edge >= 0) edgeChild[edge] = id;
    states.push(state);
    if (game.isTerminal(state)) {
      const r = game.returns(state);
      const r0 = r[0] ?? 0;
      const r1 = r[1] ?? 0;
      if (Math.abs(r0 + r1) > 1e-9) {
        throw new InvalidArgumentError(
          `Game trees need a zero-sum game; returns at ${game.stateKey(state)} are ${r0}, ${r1}.`,
        );
      }
      kind.push(NODE_TERMINAL);
      player.push(-1);
      infoSet.push(-1);
      childStart.push(edgeChild.length);
      childCount.push(0);
      utility.push(r0);
      continue;
    }
    const p = game.currentPlayer(state);
    const start = edgeChild.length;
    let actions: readonly A[];
    if (p === CHANCE_PLAYER) {
      if (!game.chanceOutcomes) {
        throw new InvalidArgumentError('The game has chance nodes but no chanceOutcomes().');
      }
      const outcomes = game.chanceOutcomes(state);
      actions = outcomes.map((o) => o.action);
      for (const o of outcomes) {
        edgeProb.push(o.probability);
        edgeAction.push(o.action);
        edgeChild.push(-1);
      }
      kind.push(NODE_CHANCE);
      player.push(-1);
      infoSet.push(-1);
    } else {
      if (p !== 0 && p !== 1) {
        throw new InvalidArgumentError(`Unexpected current player ${p} at ${game.stateKey(state)}.`);
      }
      actions = game.legalActions(state);
      const key = game.informationStateKey ? game.informationStateKey(state, p) : game.stateKey(state);
      const full = `${p}|${key}`;
      const keys = actions.map((a) => game.actionKey(a));
      let info = infoIndex.get(full);
      if (info === undefined) {
        info = infoKey.length;
        infoIndex.set(full, info);
        infoKey.push(key);
        infoPlayer.push(p);
        infoActions.push([...actions]);
        infoActionKeys.push(keys);
        infoNodes.push([]);
      } else {
        const known = infoActionKeys[info] as string[];
        if (known.length !== keys.length || known.some((k, i) => k !== keys[i])) {
          throw new InvalidArgumentError(
            `Information set '${key}' of player ${p} has different legal actions in different states.`,
          );
        }
      }
      (infoNodes[info] as number[]).push(id);
      for (const a of actions) {
        edgeProb.push(1);
        edgeAction.push(a);
        edgeChild.push(-1);
      }
      kind.push(NODE_PLAYER);
      player.push(p);
      infoSet.push(info);
    }
    if (actions.length === 0) {
      throw new InvalidArgumentError(`Non-terminal state ${game.stateKey(state)} has no actions.`);
    }
    childStart.push(start);
    childCount.push(actions.length);
    utility.push(0);
    // Push in reverse so the first action is visited first (pre-order matches action order).
    for (let j = actions.length - 1; j >= 0; j--) {
      stack.push({ state: game.apply(state, actions[j] as A), edge: start + j });
    }
  }

  const infoOffset = new Int32Array(infoKey.length);
  const infoNumActions = new Int32Array(infoKey.length);
  let slots = 0;
  for (let i = 0; i < infoKey.length; i++) {
    infoOffset[i] = slots;
    infoNumActions[i] = (infoActions[i] as A[]).length;
    slots += infoNumActions[i] as number;
  }
  return {
    game,
    root,
    numNodes: states.length,
    kind: Int8Array.from(kind),
    player: Int8Array.from(player),
    infoSet: Int32Array.from(infoSet),
    childStart: Int32Array.from(childStart),
    childCount: Int32Array.from(childCount),
    edgeChild: Int32Array.from(edgeChild),
    edgeProb: Float64Array.from(edgeProb),
    utility: Float64Array.from(utility),
    states,
    edgeAction,
    numInfoSets: infoKey.length,
    infoKey,
    infoPlayer: Int8Array.from(infoPlayer),
    infoOffset,
    infoNumActions,
    infoActions,
    infoActionKeys,
    infoNodes,
    numSlots: slots,
    infoIndex,
  };
}
