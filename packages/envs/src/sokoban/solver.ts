/**
 * Breadth-first Sokoban solver over primitive moves (optimal in moves), with simple dead squares
 * (cells from which no box can ever reach a target) pruned, and the deadlock test built on it.
 */

import { InvalidArgumentError } from '@mage-rl/spec';
import { isSolved, SOKOBAN_MOVES, type SokobanMove, type SokobanRoom, type SokobanState } from './room';

const DEAD_CACHE = new WeakMap<SokobanRoom, Uint8Array>();

/**
 * 1 for floor cells a box can never be pushed from onto any target (found by pulling a box backwards
 * from every target), 0 elsewhere. Cached per room.
 */
export function deadSquares(room: SokobanRoom): Uint8Array {
  const cached = DEAD_CACHE.get(room);
  if (cached) return cached;
  const n = room.width * room.height;
  const live = new Uint8Array(n);
  const queue: number[] = [];
  for (const t of room.targetCells) {
    live[t] = 1;
    queue.push(t);
  }
  while (queue.length > 0) {
    const c = queue.pop()!;
    for (let d = 0; d < 4; d++) {
      // Pull the box at c in direction d: the player stands at c+d and steps on to c+2d.
      const to = room.next[c * 4 + d]!;
      if (to < 0 || live[to]) continue;
      if (room.next[to * 4 + d]! < 0) continue;
      live[to] = 1;
      queue.push(to);
    }
  }
  const dead = new Uint8Array(n);
  for (let c = 0; c < n; c++) dead[c] = !room.walls[c] && !live[c] ? 1 : 0;
  DEAD_CACHE.set(room, dead);
  return dead;
}

export interface SolveOptions {
  /** Longest solution searched for, in moves. Default 100. */
  readonly maxDepth?: number;
  /** States the search may visit before giving up. Default 300 000. */
  readonly maxNodes?: number;
}

export type SolveStatus = 'solved' | 'unsolvable' | 'depth-limit' | 'node-limit';

export interface SolveResult {
  /** `solved`; `unsolvable` (every reachable state explored); or which limit stopped the search. */
  readonly status: SolveStatus;
  /** An optimal (fewest moves) solution when `solved`, else `null`. */
  readonly solution: SokobanMove[] | null;
  /** States visited. */
  readonly nodes: number;
}

/** Optimal solution in primitive moves by breadth-first search. Never mutates `state`. */
export function solveSokoban(state: SokobanState, options: SolveOptions = {}): SolveResult {
  const maxDepth = options.maxDepth ?? 100;
  const maxNodes = options.maxNodes ?? 300_000;
  const { room } = state;
  const n = room.width * room.height;
  const b = state.boxes.length;
  if (n ** (b + 1) > Number.MAX_SAFE_INTEGER) {
    throw new InvalidArgumentError(`Room too large for the solver's state keys (${n} cells, ${b} boxes).`);
  }
  if (isSolved(state)) return { status: 'solved', solution: [], nodes: 1 };
  const dead = deadSquares(room);
  for (const box of state.boxes) if (dead[box]) return { status: 'unsolvable', solution: null, nodes: 1 };

  const next = room.next;
  const nodes = new SearchNodes(n, b);
  const seen = new Set<number>();
  const child = new Int32Array(b);
  seen.add(nodes.keyOf(state.player, state.boxes, 0));
  nodes.push(state.player, state.boxes, 0, -1, 0, 0);
  let depthLimited = false;
  for (let head = 0; head < nodes.count; head++) {
    const depth = nodes.depthOf[head]!;
    if (depth >= maxDepth) {
      depthLimited = true;
      continue;
    }
    const p = nodes.players[head]!;
    const base = head * b;
    for (let d = 0; d < 4; d++) {
      const np = next[p * 4 + d]!;
      if (np < 0) continue;
      const hit = boxAt(nodes.boxesOf, base, b, np);
      if (hit < 0) {
        const key = nodes.keyOf(np, nodes.boxesOf, base);
        if (seen.has(key)) continue;
        seen.add(key);
        nodes.push(np, nodes.boxesOf, base, head, d, depth + 1);
      } else {
        const nb = next[np * 4 + d]!;
        if (nb < 0 || dead[nb] || boxAt(nodes.boxesOf, base, b, nb) >= 0) continue;
        pushedBoxes(nodes.boxesOf, base, hit, nb, child);
        const key = nodes.keyOf(np, child, 0);
        if (seen.has(key)) continue;
        seen.add(key);
        const node = nodes.push(np, child, 0, head, d, depth + 1);
        if (allOnTargets(room.targets, child)) {
          return { status: 'solved', solution: nodes.pathTo(node), nodes: nodes.count };
        }
      }
      if (nodes.count >= maxNodes) return { status: 'node-limit', solution: null, nodes: nodes.count };
    }
  }
  return { status: depthLimited ? 'depth-limit' : 'unsolvable', solution: null, nodes: nodes.count };
}

/** Index `i` (0 ≤ i < `b`) of the box on `cell` among `boxes[base .. base + b)`, or −1. */
function boxAt(boxes: Int32Array, base: number, b: number, cell: number): number {
  for (let i = 0; i < b; i++) if (boxes[base + i] === cell) return i;
  return -1;
}

/**
 * Writes into `out` the boxes `boxes[base .. base + out.length)` with box `hit` moved to `to`, keeping
 * them sorted (one insertion step in either direction).
 */
function pushedBoxes(boxes: Int32Array, base: number, hit: number, to: number, out: Int32Array): void {
  const b = out.length;
  for (let i = 0; i < b; i++) out[i] = boxes[base + i]!;
  out[hit] = to;
  let i = hit;
  while (i > 0 && out[i - 1]! > out[i]!) {
    const t = out[i - 1]!;
    out[i - 1] = out[i]!;
    out[i] = t;
    i--;
  }
  while (i < b - 1 && out[i + 1]! < out[i]!) {
    const t = out[i + 1]!;
    out[i + 1] = out[i]!;
    out[i] = t;
    i++;
  }
}

function allOnTargets(targets: Uint8Array, boxes: Int32Array): boolean {
  for (let j = 0; j < boxes.length; j++) if (!targets[boxes[j]!]) return false;
  return true;
}

/** The BFS queue: player cell, sorted boxes, parent, move and depth per node, in growable typed arrays. */
class SearchNodes {
  count = 0;
  players: Int32Array;
  /** Boxes of node `i` at `boxesOf[i * b .. i * b + b)`. */
  boxesOf: Int32Array;
  private parent: Int32Array;
  private moveOf: Uint8Array;
  depthOf: Uint16Array;
  private cap = 1024;

  constructor(
    /** Cells of the room. */
    private readonly n: number,
    /** Boxes per state. */
    private readonly b: number,
  ) {
    this.players = new Int32Array(this.cap);
    this.boxesOf = new Int32Array(this.cap * b);
    this.parent = new Int32Array(this.cap);
    this.moveOf = new Uint8Array(this.cap);
    this.depthOf = new Uint16Array(this.cap);
  }

  /** A unique number per state: player + Σ box_i · n^(i+1) (exact below 2^53, checked by the caller). */
  keyOf(p: number, bx: Int32Array | readonly number[], offset: number): number {
    let key = p;
    let mult = this.n;
    for (let i = 0; i < this.b; i++) {
      key += bx[offset + i]! * mult;
      mult *= this.n;
    }
    return key;
  }

  /** Appends a node; returns its index. */
  push(
    p: number,
    bx: Int32Array | readonly number[],
    offset: number,
    from: number,
    move: number,
    depth: number,
  ) {
    const b = this.b;
    if (this.count === this.cap) this.grow();
    const id = this.count;
    this.players[id] = p;
    for (let i = 0; i < b; i++) this.boxesOf[id * b + i] = bx[offset + i]!;
    this.parent[id] = from;
    this.moveOf[id] = move;
    this.depthOf[id] = depth;
    return this.count++;
  }

  /** The moves from the root to `node`. */
  pathTo(node: number): SokobanMove[] {
    const moves: SokobanMove[] = [];
    for (let i = node; i > 0; i = this.parent[i]!) moves.push(SOKOBAN_MOVES[this.moveOf[i]!]!);
    return moves.reverse();
  }

  private grow(): void {
    this.cap *= 2;
    const grow = <T extends Int32Array | Uint8Array | Uint16Array>(a: T, size: number): T => {
      const out = new (a.constructor as new (len: number) => T)(size);
      out.set(a);
      return out;
    };
    this.players = grow(this.players, this.cap);
    this.boxesOf = grow(this.boxesOf, this.cap * this.b);
    this.parent = grow(this.parent, this.cap);
    this.moveOf = grow(this.moveOf, this.cap);
    this.depthOf = grow(this.depthOf, this.cap);
  }
}

export interface DeadlockOptions extends SolveOptions {}

/**
 * True when the puzzle can no longer be solved within `maxDepth` moves: a box on a dead square, or a
 * bounded search that finds no solution. A search stopped by `maxNodes` counts as "not deadlocked".
 */
export function isDeadlocked(state: SokobanState, options: DeadlockOptions = {}): boolean {
  if (isSolved(state)) return false;
  const dead = deadSquares(state.room);
  for (const box of state.boxes) if (dead[box]) return true;
  const result = solveSokoban(state, options);
  return result.status === 'unsolvable' || result.status === 'depth-limit';
}
