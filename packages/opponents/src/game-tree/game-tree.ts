/**
 * A two-player zero-sum extensive-form game (any `GameModelV1` with chance nodes and information-state
 * keys) unrolled once into flat typed arrays, so that CFR, best response and policy evaluation run as
 * loops over indices instead of recursions over states and string maps.
 *
 * Nodes are stored in depth-first pre-order: a parent always comes before its children, so one forward
 * loop propagates reach probabilities and one backward loop computes values.
 */

import { CHANCE_PLAYER, type GameModelV1, InvalidArgumentError } from '@mage-rl/spec';

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

/**
 * Forward pass: the reach probability of every node when both players follow `profile`, split into
 * player `p`'s own part (`reachOwn`) and the part of chance and the other player (`reachOther`).
 */
export function reachProbabilities<S, A>(
  tree: GameTree<S, A>,
  profile: Float64Array,
  p: number,
  reachOwn: Float64Array,
  reachOther: Float64Array,
): void {
  const { numNodes, kind, player, infoSet, infoOffset, childStart, childCount, edgeChild, edgeProb } = tree;
  reachOwn[0] = 1;
  reachOther[0] = 1;
  for (let i = 0; i < numNodes; i++) {
    const k = kind[i]!;
    if (k === NODE_TERMINAL) continue;
    const start = childStart[i]!;
    const end = start + childCount[i]!;
    const own = reachOwn[i]!;
    const other = reachOther[i]!;
    if (k === NODE_CHANCE) {
      for (let e = start; e < end; e++) {
        const c = edgeChild[e]!;
        reachOwn[c] = own;
        reachOther[c] = other * edgeProb[e]!;
      }
    } else {
      const o = infoOffset[infoSet[i]!]! - start;
      if (player[i] === p) {
        for (let e = start; e < end; e++) {
          const c = edgeChild[e]!;
          reachOwn[c] = own * profile[o + e]!;
          reachOther[c] = other;
        }
      } else {
        for (let e = start; e < end; e++) {
          const c = edgeChild[e]!;
          reachOwn[c] = own;
          reachOther[c] = other * profile[o + e]!;
        }
      }
    }
  }
}

/**
 * Backward pass: the expected value of every node when both players follow `profile`, for player 0
 * (`sign` 1) or player 1 (`sign` −1), written into `value` (length `numNodes`).
 */
export function nodeValues<S, A>(
  tree: GameTree<S, A>,
  profile: Float64Array,
  sign: number,
  value: Float64Array,
): void {
  const { numNodes, kind, infoSet, infoOffset, childStart, childCount, edgeChild, edgeProb, utility } = tree;
  for (let i = numNodes - 1; i >= 0; i--) {
    const k = kind[i]!;
    if (k === NODE_TERMINAL) {
      value[i] = sign * utility[i]!;
      continue;
    }
    const start = childStart[i]!;
    const end = start + childCount[i]!;
    let v = 0;
    if (k === NODE_CHANCE) {
      for (let e = start; e < end; e++) v += edgeProb[e]! * value[edgeChild[e]!]!;
    } else {
      const o = infoOffset[infoSet[i]!]! - start;
      for (let e = start; e < end; e++) v += profile[o + e]! * value[edgeChild[e]!]!;
    }
    value[i] = v;
  }
}

/** Unrolls the whole game below `root`. Throws on non-zero-sum returns or inconsistent information sets. */
export function buildGameTree<S, A>(options: BuildGameTreeOptions<S, A>): GameTree<S, A> {
  const { game, root } = options;
  const maxNodes = options.maxNodes ?? 2_000_000;
  if (game.numPlayers !== 2) {
    throw new InvalidArgumentError(`Game trees need a two-player game, got ${game.numPlayers} players.`);
  }
  const b = emptyBuilder<S, A>();
  // Iterative pre-order DFS; edges of a node are reserved when the node is visited.
  const stack: { state: S; edge: number }[] = [{ state: root, edge: -1 }];
  while (stack.length > 0) {
    const { state, edge } = stack.pop()!;
    const id = b.states.length;
    if (id >= maxNodes) {
      throw new InvalidArgumentError(`The game tree has more than ${maxNodes} nodes; raise maxNodes.`, {
        context: { maxNodes },
      });
    }
    if (edge >= 0) b.edgeChild[edge] = id;
    b.states.push(state);
    if (game.isTerminal(state)) {
      addTerminal(b, game, state);
      continue;
    }
    const p = game.currentPlayer(state);
    const start = b.edgeChild.length;
    const actions =
      p === CHANCE_PLAYER ? addChanceNode(b, game, state) : addPlayerNode(b, game, state, p, id);
    if (actions.length === 0) {
      throw new InvalidArgumentError(`Non-terminal state ${game.stateKey(state)} has no actions.`);
    }
    b.childStart.push(start);
    b.childCount.push(actions.length);
    b.utility.push(0);
    // Push in reverse so the first action is visited first (pre-order matches action order).
    for (let j = actions.length - 1; j >= 0; j--) {
      stack.push({ state: game.apply(state, actions[j]!), edge: start + j });
    }
  }
  return finishTree(b, game, root);
}

/** The growing columns of a tree under construction (plain arrays, packed into typed arrays at the end). */
interface TreeBuilder<S, A> {
  readonly kind: number[];
  readonly player: number[];
  readonly infoSet: number[];
  readonly childStart: number[];
  readonly childCount: number[];
  readonly utility: number[];
  readonly states: S[];
  readonly edgeChild: number[];
  readonly edgeProb: number[];
  readonly edgeAction: A[];
  readonly infoKey: string[];
  readonly infoPlayer: number[];
  readonly infoActions: A[][];
  readonly infoActionKeys: string[][];
  readonly infoNodes: number[][];
  readonly infoIndex: Map<string, number>;
}

function emptyBuilder<S, A>(): TreeBuilder<S, A> {
  return {
    kind: [],
    player: [],
    infoSet: [],
    childStart: [],
    childCount: [],
    utility: [],
    states: [],
    edgeChild: [],
    edgeProb: [],
    edgeAction: [],
    infoKey: [],
    infoPlayer: [],
    infoActions: [],
    infoActionKeys: [],
    infoNodes: [],
    infoIndex: new Map(),
  };
}

/** A terminal node: no edges, player 0's return (checked to be zero-sum). */
function addTerminal<S, A>(b: TreeBuilder<S, A>, game: GameModelV1<S, A>, state: S): void {
  const r = game.returns(state);
  const r0 = r[0] ?? 0;
  const r1 = r[1] ?? 0;
  if (Math.abs(r0 + r1) > 1e-9) {
    throw new InvalidArgumentError(
      `Game trees need a zero-sum game; returns at ${game.stateKey(state)} are ${r0}, ${r1}.`,
    );
  }
  b.kind.push(NODE_TERMINAL);
  b.player.push(-1);
  b.infoSet.push(-1);
  b.childStart.push(b.edgeChild.length);
  b.childCount.push(0);
  b.utility.push(r0);
}

/** A chance node: reserves one edge per outcome; returns the outcomes' actions. */
function addChanceNode<S, A>(b: TreeBuilder<S, A>, game: GameModelV1<S, A>, state: S): readonly A[] {
  if (!game.chanceOutcomes) {
    throw new InvalidArgumentError('The game has chance nodes but no chanceOutcomes().');
  }
  const outcomes = game.chanceOutcomes(state);
  for (const o of outcomes) {
    b.edgeProb.push(o.probability);
    b.edgeAction.push(o.action);
    b.edgeChild.push(-1);
  }
  b.kind.push(NODE_CHANCE);
  b.player.push(-1);
  b.infoSet.push(-1);
  return outcomes.map((o) => o.action);
}

/** A player node: joins (or opens) its information set and reserves one edge per legal action. */
function addPlayerNode<S, A>(
  b: TreeBuilder<S, A>,
  game: GameModelV1<S, A>,
  state: S,
  p: number,
  id: number,
): readonly A[] {
  if (p !== 0 && p !== 1) {
    throw new InvalidArgumentError(`Unexpected current player ${p} at ${game.stateKey(state)}.`);
  }
  const actions = game.legalActions(state);
  const key = game.informationStateKey ? game.informationStateKey(state, p) : game.stateKey(state);
  const info = infoSetOf(b, key, p, actions, game);
  b.infoNodes[info]!.push(id);
  for (const a of actions) {
    b.edgeProb.push(1);
    b.edgeAction.push(a);
    b.edgeChild.push(-1);
  }
  b.kind.push(NODE_PLAYER);
  b.player.push(p);
  b.infoSet.push(info);
  return actions;
}

/** Index of player `p`'s information set `key`, new or known (then with the same legal actions). */
function infoSetOf<S, A>(
  b: TreeBuilder<S, A>,
  key: string,
  p: number,
  actions: readonly A[],
  game: GameModelV1<S, A>,
): number {
  const full = `${p}|${key}`;
  const keys = actions.map((a) => game.actionKey(a));
  const known = b.infoIndex.get(full);
  if (known === undefined) {
    const info = b.infoKey.length;
    b.infoIndex.set(full, info);
    b.infoKey.push(key);
    b.infoPlayer.push(p);
    b.infoActions.push([...actions]);
    b.infoActionKeys.push(keys);
    b.infoNodes.push([]);
    return info;
  }
  const knownKeys = b.infoActionKeys[known]!;
  if (knownKeys.length !== keys.length || knownKeys.some((k, i) => k !== keys[i])) {
    throw new InvalidArgumentError(
      `Information set '${key}' of player ${p} has different legal actions in different states.`,
    );
  }
  return known;
}

/** Packs the builder's columns into the typed arrays of a `GameTree` and lays out the strategy slots. */
function finishTree<S, A>(b: TreeBuilder<S, A>, game: GameModelV1<S, A>, root: S): GameTree<S, A> {
  const numInfoSets = b.infoKey.length;
  const infoOffset = new Int32Array(numInfoSets);
  const infoNumActions = new Int32Array(numInfoSets);
  let slots = 0;
  for (let i = 0; i < numInfoSets; i++) {
    infoOffset[i] = slots;
    infoNumActions[i] = b.infoActions[i]!.length;
    slots += infoNumActions[i]!;
  }
  return {
    game,
    root,
    numNodes: b.states.length,
    kind: Int8Array.from(b.kind),
    player: Int8Array.from(b.player),
    infoSet: Int32Array.from(b.infoSet),
    childStart: Int32Array.from(b.childStart),
    childCount: Int32Array.from(b.childCount),
    edgeChild: Int32Array.from(b.edgeChild),
    edgeProb: Float64Array.from(b.edgeProb),
    utility: Float64Array.from(b.utility),
    states: b.states,
    edgeAction: b.edgeAction,
    numInfoSets,
    infoKey: b.infoKey,
    infoPlayer: Int8Array.from(b.infoPlayer),
    infoOffset,
    infoNumActions,
    infoActions: b.infoActions,
    infoActionKeys: b.infoActionKeys,
    infoNodes: b.infoNodes,
    numSlots: slots,
    infoIndex: b.infoIndex,
  };
}
