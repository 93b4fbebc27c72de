/**
 * Breadth-first Sokoban solver over primitive moves (optimal in moves), with simple dead squares
 * (cells from which no box can ever reach a target) pruned, and the deadlock test built on it.
 */

import { InvalidArgumentError } from '@mage-rl/core';
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
    const c = queue.pop() as number;
    for (let d = 0; d < 4; d++) {
      // Pull the box at c in direction d: the player stands at c+d and steps on to c+2d.
      const to = room.next[c * 4 + d] as number;
      if (to < 0 || live[to]) continue;
      if ((room.next[to * 4 + d] as number) < 0) continue;
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

  const targets = room.targets;
  const next = room.next;
  let cap = 1024;
  let players = new Int32Array(cap);
  let boxesOf = new Int32Array(cap * b);
  let parent = new Int32Array(cap);
  let moveOf = new Uint8Array(cap);
  let depthOf = new Uint16Array(cap);
  const seen = new Set<number>();
  const child = new Int32Array(b);

  const keyOf = (p: number, bx: Int32Array | readonly number[], offset: number): number => {
    let key = p;
    let mult = n;
    for (let i = 0; i < b; i++) {
      key += (bx[offset + i] as number) * mult;
      mult *= n;
    }
    return key;
  };

  let count = 0;
  const push = (
    p: number,
    bx: Int32Array | readonly number[],
    offset: number,
    from: number,
    move: number,
    depth: number,
  ) => {
    if (count === cap) {
      cap *= 2;
      const grow = <T extends Int32Array | Uint8Array | Uint16Array>(a: T, size: number): T => {
        const out = new (a.constructor as new (len: number) => T)(size);
        out.set(a);
        return out;
      };
      players = grow(players, cap);
      boxesOf = grow(boxesOf, cap * b);
      parent = grow(parent, cap);
      moveOf = grow(moveOf, cap);
      depthOf = grow(depthOf, cap);
    }
    players[count] = p;
    for (let i = 0; i < b; i++) boxesOf[count * b + i] = bx[offset + i] as number;
    parent[count] = from;
    moveOf[count] = move;
    depthOf[count] = depth;
    return count++;
  };

  const pathTo = (node: number): SokobanMove[] => {
    const moves: SokobanMove[] = [];
    for (let i = node; i > 0; i = parent[i] as number)
      moves.push(SOKOBAN_MOVES[moveOf[i] as number] as SokobanMove);
    return moves.reverse();
  };

  seen.add(keyOf(state.player, state.boxes, 0));
  push(state.player, state.boxes, 0, -1, 0, 0);
  let depthLimited = false;
  for (let head = 0; head < count; head++) {
    const depth = depthOf[head] as number;
    if (depth >= maxDepth) {
      depthLimited = true;
      continue;
    }
    const p = players[head] as number;
    const base = head * b;
    for (let d = 0; d < 4; d++) {
      const np = next[p * 4 + d] as number;
      if (np < 0) continue;
      let hit = -1;
      for (let i = 0; i < b; i++) {
        if (boxesOf[base + i] === np) {
          hit = i;
          break;
        }
      }
      if (hit < 0) {
        const key = keyOf(np, boxesOf, base);
        if (seen.has(key)) continue;
        seen.add(key);
        push(np, boxesOf, base, head, d, depth + 1);
      } else {
        const nb = next[np * 4 + d] as number;
        if (nb < 0 || dead[nb]) continue;
        let blocked = false;
        for (let i = 0; i < b; i++) {
          if (boxesOf[base + i] === nb) {
            blocked = true;
            break;
          }
        }
        if (blocked) continue;
        // Copy the boxes with the pushed one moved, keeping them sorted (insertion).
        for (let i = 0; i < b; i++) child[i] = boxesOf[base + i] as number;
        child[hit] = nb;
        let i = hit;
        while (i > 0 && (child[i - 1] as number) > (child[i] as number)) {
          const t = child[i - 1] as number;
          child[i - 1] = child[i] as number;
          child[i] = t;
          i--;
        }
        while (i < b - 1 && (child[i + 1] as number) < (child[i] as number)) {
          const t = child[i + 1] as number;
          child[i + 1] = child[i] as number;
          child[i] = t;
          i++;
        }
        const key = keyOf(np, child, 0);
        if (seen.has(key)) continue;
        seen.add(key);
        const node = push(np, child, 0, head, d, depth + 1);
        let solved = true;
        for (let j = 0; j < b; j++) {
          if (!targets[child[j] as number]) {
            solved = false;
            break;
          }
        }
        if (solved) return { status: 'solved', solution: pathTo(node), nodes: count };
      }
      if (count >= maxNodes) return { status: 'node-limit', solution: null, nodes: count };
    }
  }
  return { status: depthLimited ? 'depth-limit' : 'unsolvable', solution: null, nodes: count };
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
