/**
 * UCT Monte-Carlo tree search for Tic-Tac-Toe on bitboards, with MCTS-Solver backups (SPEC §3.1).
 *
 * - Selection: UCT, Q + c·sqrt(ln N / n) with rewards win 1, draw ½, loss 0 for the player who moved
 *   into a node; proven losses are never selected.
 * - Expansion: the first visit of a node allocates all its children in a shuffled order; each later
 *   visit adds the next untried child (so children enter the tree in shuffled order).
 * - Evaluation: one uniformly random rollout to the end of the game.
 * - MCTS-Solver: terminal nodes are proven; a node is proven lost for its mover when a child is a proven
 *   win for the player to move there, and proven with value −max(children) once every child is proven.
 *   The search stops as soon as the root is proven.
 * - Final move: the child with the best (proven value, visits, total reward).
 *
 * Nodes live in typed-array pools reused across searches (a fresh tree per move: the pool is reset, not
 * reallocated), and the simulation loop allocates nothing.
 */

import { InvalidArgumentError, type Rng } from '@mage-rl/core';
import { lineMasks, type TicTacToeState } from '@mage-rl/envs/tictactoe';

/** Proven value of a node for the player who moved into it. */
export type ProvenValue = -1 | 0 | 1;

export interface MctsChildStats {
  readonly action: number;
  readonly visits: number;
  /** Total reward of the player to move at the root (win 1, draw ½, loss 0). */
  readonly reward: number;
  /** Proven value for the player to move at the root, or `null`. */
  readonly proven: ProvenValue | null;
}

export interface MctsSearchResult {
  readonly action: number;
  /** Simulations actually run (fewer than asked when the root got proven). */
  readonly simulations: number;
  /** Proven value of the root position for the player to move, or `null`. */
  readonly rootProven: ProvenValue | null;
  readonly children: readonly MctsChildStats[];
}

export interface TicTacToeMctsOptions {
  /** Simulations per move. */
  readonly simulations: number;
  /** UCT exploration constant (default 1.4). */
  readonly exploration?: number;
  /** MCTS-Solver backups and early stop (default true). */
  readonly solver?: boolean;
}

export interface TicTacToeMcts {
  readonly simulations: number;
  readonly exploration: number;
  /** Search `state` with a fresh tree; all randomness from `rng`. */
  search(state: TicTacToeState, rng: Rng): MctsSearchResult;
}

const TWO_POW_32 = 4294967296;
const UNKNOWN = 2;

interface Board {
  readonly size: number;
  readonly cells: number;
  readonly full: number;
  /** Lines through each cell: `lineList[lineStart[c] .. lineStart[c+1])`. */
  readonly lineStart: Int32Array;
  readonly lineList: Int32Array;
}

const BOARDS = new Map<number, Board>();

function boardOf(size: number): Board {
  const cached = BOARDS.get(size);
  if (cached) return cached;
  const lines = lineMasks(size);
  const cells = size * size;
  const lineStart = new Int32Array(cells + 1);
  const list: number[] = [];
  for (let c = 0; c < cells; c++) {
    lineStart[c] = list.length;
    for (const m of lines) if ((m & (1 << c)) !== 0) list.push(m);
  }
  lineStart[cells] = list.length;
  const board = { size, cells, full: (1 << cells) - 1, lineStart, lineList: Int32Array.from(list) };
  BOARDS.set(size, board);
  return board;
}

export function createTicTacToeMcts(options: TicTacToeMctsOptions): TicTacToeMcts {
  const simulations = options.simulations;
  const c = options.exploration ?? 1.4;
  const solver = options.solver ?? true;
  if (!Number.isInteger(simulations) || simulations < 1) {
    throw new InvalidArgumentError(
      `MCTS needs a positive integer number of simulations, got ${simulations}.`,
    );
  }
  if (!(c >= 0) || !Number.isFinite(c)) {
    throw new InvalidArgumentError(`MCTS exploration must be a finite number >= 0, got ${c}.`);
  }

  let capacity = 0;
  let visits = new Int32Array(0);
  let reward = new Float64Array(0);
  let move = new Int8Array(0);
  let childStart = new Int32Array(0);
  let childCount = new Int8Array(0);
  let tried = new Int8Array(0);
  /** Proven value + 1 for the node's mover (0 loss, 1 draw, 2 win), or `UNKNOWN + 1`. */
  let proven = new Int8Array(0);
  let used = 0;
  const path = new Int32Array(32);
  const scratch = new Int32Array(32);

  const ensure = (needed: number): void => {
    if (needed <= capacity) return;
    const next = Math.max(needed, capacity * 2, 1024);
    const grow = <T extends Int32Array | Float64Array | Int8Array>(old: T, make: (n: number) => T): T => {
      const fresh = make(next);
      fresh.set(old as never);
      return fresh;
    };
    visits = grow(visits, (n) => new Int32Array(n));
    reward = grow(reward, (n) => new Float64Array(n));
    move = grow(move, (n) => new Int8Array(n));
    childStart = grow(childStart, (n) => new Int32Array(n));
    childCount = grow(childCount, (n) => new Int8Array(n));
    tried = grow(tried, (n) => new Int8Array(n));
    proven = grow(proven, (n) => new Int8Array(n));
    capacity = next;
  };

  const newNode = (cell: number): number => {
    const id = used++;
    visits[id] = 0;
    reward[id] = 0;
    move[id] = cell;
    childStart[id] = -1;
    childCount[id] = 0;
    tried[id] = 0;
    proven[id] = UNKNOWN + 1;
    return id;
  };

  const search = (state: TicTacToeState, rng: Rng): MctsSearchResult => {
    const board = boardOf(state.size);
    const { cells, full, lineStart, lineList } = board;
    const wins = (bits: number, cell: number): boolean => {
      const end = lineStart[cell + 1] as number;
      for (let k = lineStart[cell] as number; k < end; k++) {
        const m = lineList[k] as number;
        if ((bits & m) === m) return true;
      }
      return false;
    };
    if (state.winner !== null || ((state.x | state.o) & full) === full) {
      throw new InvalidArgumentError('MCTS was asked to move in a finished Tic-Tac-Toe game.');
    }
    const rootX = state.x;
    const rootO = state.o;
    const rootToMove = state.toMove;
    used = 0;
    ensure(1 + cells);
    newNode(-1);
    let sims = 0;

    while (sims < simulations) {
      if (solver && proven[0] !== UNKNOWN + 1) break;
      sims++;
      let x = rootX;
      let o = rootO;
      let toMove = rootToMove;
      let node = 0;
      let depth = 0;
      path[0] = 0;
      // Outcome of this simulation: 0 / 1 = that player won, 2 = draw.
      let outcome = 2;
      let newlyProven = false;
      for (;;) {
        const pv = proven[node] as number;
        if (pv !== UNKNOWN + 1) {
          // A proven node (terminal, or solved below): its value stands in for a rollout.
          const mover = toMove ^ 1;
          outcome = pv === 2 ? mover : pv === 0 ? toMove : 2;
          break;
        }
        let start = childStart[node] as number;
        if (start < 0) {
          // First visit: allocate every child, in shuffled order.
          ensure(used + cells);
          start = used;
          let empty = full & ~(x | o);
          let n = 0;
          while (empty !== 0) {
            const low = empty & -empty;
            scratch[n++] = 31 - Math.clz32(low);
            empty ^= low;
          }
          for (let i = n - 1; i > 0; i--) {
            const j = Math.floor((rng.nextUint32() * (i + 1)) / TWO_POW_32);
            const t = scratch[i] as number;
            scratch[i] = scratch[j] as number;
            scratch[j] = t;
          }
          for (let i = 0; i < n; i++) newNode(scratch[i] as number);
          childStart[node] = start;
          childCount[node] = n;
        }
        const count = childCount[node] as number;
        const t = tried[node] as number;
        let child: number;
        if (t < count) {
          child = start + t;
          tried[node] = t + 1;
        } else {
          // UCT over the children, skipping proven losses for the player to move.
          const logN = Math.log(visits[node] as number);
          let best = -1;
          let bestScore = Number.NEGATIVE_INFINITY;
          for (let k = start; k < start + count; k++) {
            if (proven[k] === 0) continue;
            const n = visits[k] as number;
            const score = (reward[k] as number) / n + c * Math.sqrt(logN / n);
            if (score > bestScore) {
              bestScore = score;
              best = k;
            }
          }
          if (best < 0) best = start; // every child lost: only reachable with the solver off
          child = best;
        }
        const bit = 1 << (move[child] as number);
        const cell = move[child] as number;
        path[++depth] = child;
        node = child;
        if (toMove === 0) {
          x |= bit;
          if (wins(x, cell)) {
            proven[child] = 2;
            newlyProven = true;
            outcome = 0;
            break;
          }
        } else {
          o |= bit;
          if (wins(o, cell)) {
            proven[child] = 2;
            newlyProven = true;
            outcome = 1;
            break;
          }
        }
        toMove ^= 1;
        if (((x | o) & full) === full) {
          proven[child] = 1;
          newlyProven = true;
          outcome = 2;
          break;
        }
        if (t < count) {
          // A new leaf: one uniformly random rollout.
          let empty = full & ~(x | o);
          let left = cells - popcount(x | o);
          let who = toMove;
          let bx = x;
          let bo = o;
          outcome = 2;
          while (left > 0) {
            let k = Math.floor((rng.nextUint32() * left) / TWO_POW_32);
            let m = empty;
            while (k-- > 0) m &= m - 1;
            const low = m & -m;
            const rc = 31 - Math.clz32(low);
            empty ^= low;
            left--;
            if (who === 0) {
              bx |= low;
              if (wins(bx, rc)) {
                outcome = 0;
                break;
              }
            } else {
              bo |= low;
              if (wins(bo, rc)) {
                outcome = 1;
                break;
              }
            }
            who ^= 1;
          }
          break;
        }
      }
      // Backup: the node at depth d was moved into by player (rootToMove + d + 1) & 1.
      for (let d = depth; d >= 0; d--) {
        const id = path[d] as number;
        visits[id] = (visits[id] as number) + 1;
        const mover = (rootToMove + d + 1) & 1;
        reward[id] = (reward[id] as number) + (outcome === 2 ? 0.5 : outcome === mover ? 1 : 0);
      }
      if (solver && newlyProven) {
        for (let d = depth - 1; d >= 0; d--) {
          const id = path[d] as number;
          const start = childStart[id] as number;
          const count = childCount[id] as number;
          const t = tried[id] as number;
          let value = -2;
          let allProven = t === count;
          for (let k = start; k < start + t; k++) {
            const pv = proven[k] as number;
            if (pv === UNKNOWN + 1) {
              allProven = false;
              continue;
            }
            if (pv === 2) {
              value = 1;
              allProven = true;
              break;
            }
            if (pv - 1 > value) value = pv - 1;
          }
          if (!allProven) break;
          // Children values are for the player to move here; this node's mover gets the negation.
          proven[id] = 1 - value;
        }
      }
    }

    const start = childStart[0] as number;
    const count = tried[0] as number;
    let best = start;
    const children: MctsChildStats[] = [];
    const rank = (k: number): number => {
      const pv = proven[k] as number;
      return pv === UNKNOWN + 1 ? 0 : pv - 1;
    };
    for (let k = start; k < start + count; k++) {
      const pv = proven[k] as number;
      children.push({
        action: move[k] as number,
        visits: visits[k] as number,
        reward: reward[k] as number,
        proven: pv === UNKNOWN + 1 ? null : ((pv - 1) as ProvenValue),
      });
      if (k === start) continue;
      const rk = rank(k);
      const rb = rank(best);
      if (
        rk > rb ||
        (rk === rb &&
          ((visits[k] as number) > (visits[best] as number) ||
            (visits[k] === visits[best] && (reward[k] as number) > (reward[best] as number))))
      ) {
        best = k;
      }
    }
    const rootPv = proven[0] as number;
    const rootValue = rootPv === 1 ? 0 : 1 - rootPv;
    return {
      action: move[best] as number,
      simulations: sims,
      rootProven: rootPv === UNKNOWN + 1 ? null : (rootValue as ProvenValue),
      children,
    };
  };

  return { simulations, exploration: c, search };
}

function popcount(v: number): number {
  let n = v >>> 0;
  n -= (n >>> 1) & 0x55555555;
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return Math.imul((n + (n >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}
