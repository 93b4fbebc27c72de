/**
 * UCT with MCTS-Solver over any deterministic two-player `GameModelV1` (no chance nodes): the same
 * algorithm as the Tic-Tac-Toe engine, on plain objects. Slower; use it for games without a specialised
 * engine. A player "wins" a terminal state when its return is higher than the other player's.
 */

import { CHANCE_PLAYER, type GameModelV1, InvalidArgumentError, type Rng } from '@mage-rl/spec';
import type { MctsChildStats, MctsSearchResult, ProvenValue } from './tictactoe-mcts';

export interface GenericMctsOptions<S, A> {
  readonly game: GameModelV1<S, A>;
  readonly simulations: number;
  /** Default 1.4. */
  readonly exploration?: number;
  /** Default true. */
  readonly solver?: boolean;
}

export interface GenericMctsResult<A> extends Omit<MctsSearchResult, 'action' | 'children'> {
  readonly action: A;
  readonly children: readonly (Omit<MctsChildStats, 'action'> & { readonly action: A })[];
}

interface Node<S, A> {
  readonly state: S;
  readonly action: A | undefined;
  /** Player who moved into this node. */
  readonly mover: number;
  visits: number;
  reward: number;
  /** For `mover`. */
  proven: ProvenValue | null;
  children: Node<S, A>[] | null;
  tried: number;
}

export function createGenericMcts<S, A>(options: GenericMctsOptions<S, A>) {
  const { game, simulations } = options;
  const c = options.exploration ?? 1.4;
  const solver = options.solver ?? true;
  if (!Number.isInteger(simulations) || simulations < 1) {
    throw new InvalidArgumentError(
      `MCTS needs a positive integer number of simulations, got ${simulations}.`,
    );
  }
  const search = (state: S, rng: Rng): GenericMctsResult<A> => {
    if (game.isTerminal(state)) throw new InvalidArgumentError('MCTS was asked to move in a finished game.');
    const root = makeNode(game, state, undefined, 1 - toMove(game, state));
    let sims = 0;
    const path: Node<S, A>[] = [];
    while (sims < simulations && !(solver && root.proven !== null)) {
      sims++;
      path.length = 0;
      const { outcome, newlyProven } = simulate(game, root, path, c, solver, rng);
      for (const n of path) {
        n.visits++;
        n.reward += outcome === 2 ? 0.5 : outcome === n.mover ? 1 : 0;
      }
      if (solver && newlyProven) proveUpwards(path);
    }
    return resultOf(root, sims);
  };
  return { simulations, exploration: c, search };
}

/** 0 / 1 when that player's return is higher, 2 for a draw. */
function terminalOutcome<S, A>(game: GameModelV1<S, A>, state: S): number {
  const r = game.returns(state);
  const r0 = r[0] ?? 0;
  const r1 = r[1] ?? 0;
  return r0 > r1 ? 0 : r1 > r0 ? 1 : 2;
}

function toMove<S, A>(game: GameModelV1<S, A>, state: S): number {
  const p = game.currentPlayer(state);
  if (p === CHANCE_PLAYER) throw new InvalidArgumentError('Generic MCTS does not support chance nodes.');
  return p;
}

/** A new node; terminal states are proven at once. */
function makeNode<S, A>(game: GameModelV1<S, A>, state: S, action: A | undefined, mover: number): Node<S, A> {
  const node: Node<S, A> = {
    state,
    action,
    mover,
    visits: 0,
    reward: 0,
    proven: null,
    children: null,
    tried: 0,
  };
  if (game.isTerminal(state)) {
    const o = terminalOutcome(game, state);
    node.proven = o === 2 ? 0 : o === mover ? 1 : -1;
  }
  return node;
}

/**
 * One simulation from `root`: descend (next untried child, else UCT) until a proven node or a new leaf
 * (then one uniformly random rollout). Fills `path` with the nodes visited; returns the outcome (0 / 1
 * that player won, 2 draw) and whether a newly added node was proven.
 */
function simulate<S, A>(
  game: GameModelV1<S, A>,
  root: Node<S, A>,
  path: Node<S, A>[],
  c: number,
  solver: boolean,
  rng: Rng,
): { outcome: number; newlyProven: boolean } {
  let node = root;
  path.push(node);
  let newlyProven = false;
  for (;;) {
    if (node.proven !== null) {
      const outcome = node.proven === 0 ? 2 : node.proven === 1 ? node.mover : 1 - node.mover;
      return { outcome, newlyProven };
    }
    const player = toMove(game, node.state);
    let children = node.children;
    if (children === null) {
      const state = node.state;
      const actions = rng.shuffle([...game.legalActions(state)]);
      children = actions.map((a) => makeNode(game, game.apply(state, a), a, player));
      node.children = children;
    }
    if (node.tried < children.length) {
      const child = children[node.tried++]!;
      path.push(child);
      if (child.proven !== null) {
        newlyProven = true;
        node = child;
        continue;
      }
      return { outcome: rollout(game, child.state, rng), newlyProven };
    }
    node = selectUct(node, children, c, solver) ?? children[0]!;
    path.push(node);
  }
}

/** One uniformly random playout to the end of the game; returns its outcome. */
function rollout<S, A>(game: GameModelV1<S, A>, state: S, rng: Rng): number {
  let s = state;
  while (!game.isTerminal(s)) {
    toMove(game, s);
    s = game.apply(s, rng.pick(game.legalActions(s)));
  }
  return terminalOutcome(game, s);
}

/** The UCT choice among `children` (proven losses skipped when solving); `undefined` if none is left. */
function selectUct<S, A>(
  node: Node<S, A>,
  children: readonly Node<S, A>[],
  c: number,
  solver: boolean,
): Node<S, A> | undefined {
  const logN = Math.log(node.visits);
  let best: Node<S, A> | undefined;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (const ch of children) {
    if (solver && ch.proven === -1) continue;
    const score = ch.reward / ch.visits + c * Math.sqrt(logN / ch.visits);
    if (score > bestScore) {
      bestScore = score;
      best = ch;
    }
  }
  return best;
}

/** MCTS-Solver: carries a new proof up `path` while every parent becomes proven too. */
function proveUpwards<S, A>(path: readonly Node<S, A>[]): void {
  for (let d = path.length - 2; d >= 0; d--) {
    const n = path[d]!;
    const kids = n.children ?? [];
    let value = -2;
    let all = n.tried === kids.length;
    for (let k = 0; k < n.tried; k++) {
      const pv = kids[k]!.proven;
      if (pv === null) {
        all = false;
      } else if (pv === 1) {
        value = 1;
        all = true;
        break;
      } else if (pv > value) {
        value = pv;
      }
    }
    if (!all) break;
    n.proven = (value === 0 ? 0 : -value) as ProvenValue;
  }
}

/** The root's children and the final move: best (proven value, visits, total reward). */
function resultOf<S, A>(root: Node<S, A>, sims: number): GenericMctsResult<A> {
  const kids = (root.children ?? []).slice(0, root.tried);
  const rank = (n: Node<S, A>) => n.proven ?? 0;
  let best = kids[0]!;
  for (const k of kids) {
    if (
      rank(k) > rank(best) ||
      (rank(k) === rank(best) &&
        (k.visits > best.visits || (k.visits === best.visits && k.reward > best.reward)))
    ) {
      best = k;
    }
  }
  return {
    action: best.action as A,
    simulations: sims,
    rootProven: root.proven === null ? null : ((root.proven === 0 ? 0 : -root.proven) as ProvenValue),
    children: kids.map((k) => ({
      action: k.action as A,
      visits: k.visits,
      reward: k.reward,
      proven: k.proven,
    })),
  };
}
