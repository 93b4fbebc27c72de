/**
 * UCT Monte-Carlo tree search for Tic-Tac-Toe on bitboards, with MCTS-Solver backups: the `mcts-N`
 * opponents of Tic-Tac-Toe.
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

import { lineMasks, type TicTacToeState } from '@mage-rl/envs/tictactoe';
import { InvalidArgumentError, type Rng } from '@mage-rl/spec';

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
  const engine = new MctsEngine(simulations, c, solver);
  return { simulations, exploration: c, search: (state, rng) => engine.search(state, rng) };
}

/** `proven` code of a node whose value is not known yet (codes are proven value + 1). */
const OPEN = UNKNOWN + 1;
/** `outcome` of a simulation that ended in a draw (0 / 1: that player won). */
const DRAW = 2;

/** Whether `bits` has a full line through `cell`. */
function completesLine(board: Board, bits: number, cell: number): boolean {
  const end = board.lineStart[cell + 1]!;
  for (let k = board.lineStart[cell]!; k < end; k++) {
    const m = board.lineList[k]!;
    if ((bits & m) === m) return true;
  }
  return false;
}

/** The search state of one engine: the node pool, and the position and outcome of the running simulation. */
class MctsEngine {
  private capacity = 0;
  private visits = new Int32Array(0);
  private reward = new Float64Array(0);
  private move = new Int8Array(0);
  private childStart = new Int32Array(0);
  private childCount = new Int8Array(0);
  private tried = new Int8Array(0);
  /** Proven value + 1 for the node's mover (0 loss, 1 draw, 2 win), or `OPEN`. */
  private proven = new Int8Array(0);
  private used = 0;
  /** Node ids from the root down to the node the running simulation reached. */
  private readonly path = new Int32Array(32);
  private readonly scratch = new Int32Array(32);

  private board: Board = boardOf(3);
  private rng: Rng | undefined;
  private rootX = 0;
  private rootO = 0;
  private rootToMove = 0;
  /** Results of the last `simulate()`: depth of its last node, outcome, and whether it proved a node. */
  private depth = 0;
  private outcome = DRAW;
  private newlyProven = false;

  constructor(
    private readonly simulations: number,
    private readonly c: number,
    private readonly solver: boolean,
  ) {}

  search(state: TicTacToeState, rng: Rng): MctsSearchResult {
    this.board = boardOf(state.size);
    const { cells, full } = this.board;
    if (state.winner !== null || ((state.x | state.o) & full) === full) {
      throw new InvalidArgumentError('MCTS was asked to move in a finished Tic-Tac-Toe game.');
    }
    this.rng = rng;
    this.rootX = state.x;
    this.rootO = state.o;
    this.rootToMove = state.toMove;
    this.used = 0;
    this.ensure(1 + cells);
    this.newNode(-1);
    let sims = 0;
    while (sims < this.simulations) {
      if (this.solver && this.proven[0] !== OPEN) break;
      sims++;
      this.simulate();
      this.backup();
      if (this.solver && this.newlyProven) this.proveUpwards();
    }
    this.rng = undefined;
    return this.result(sims);
  }

  private ensure(needed: number): void {
    if (needed <= this.capacity) return;
    const next = Math.max(needed, this.capacity * 2, 1024);
    const grow = <T extends Int32Array | Float64Array | Int8Array>(old: T, make: (n: number) => T): T => {
      const fresh = make(next);
      fresh.set(old as never);
      return fresh;
    };
    this.visits = grow(this.visits, (n) => new Int32Array(n));
    this.reward = grow(this.reward, (n) => new Float64Array(n));
    this.move = grow(this.move, (n) => new Int8Array(n));
    this.childStart = grow(this.childStart, (n) => new Int32Array(n));
    this.childCount = grow(this.childCount, (n) => new Int8Array(n));
    this.tried = grow(this.tried, (n) => new Int8Array(n));
    this.proven = grow(this.proven, (n) => new Int8Array(n));
    this.capacity = next;
  }

  private newNode(cell: number): number {
    const id = this.used++;
    this.visits[id] = 0;
    this.reward[id] = 0;
    this.move[id] = cell;
    this.childStart[id] = -1;
    this.childCount[id] = 0;
    this.tried[id] = 0;
    this.proven[id] = OPEN;
    return id;
  }

  /**
   * One simulation: descend from the root (adding the next untried child, else the UCT choice) until a
   * proven node, a finished game or a new leaf (then one random rollout). Sets `depth`, `outcome` and
   * `newlyProven`; `path[0..depth]` holds the nodes visited.
   */
  private simulate(): void {
    const { cells, full } = this.board;
    const path = this.path;
    let x = this.rootX;
    let o = this.rootO;
    let toMove = this.rootToMove;
    let node = 0;
    let depth = 0;
    path[0] = 0;
    this.newlyProven = false;
    for (;;) {
      const pv = this.proven[node]!;
      if (pv !== OPEN) {
        // A proven node (terminal, or solved below): its value stands in for a rollout.
        const mover = toMove ^ 1;
        this.outcome = pv === 2 ? mover : pv === 0 ? toMove : DRAW;
        break;
      }
      let start = this.childStart[node]!;
      if (start < 0) start = this.expand(node, x, o);
      const count = this.childCount[node]!;
      const t = this.tried[node]!;
      let child: number;
      if (t < count) {
        child = start + t;
        this.tried[node] = t + 1;
      } else {
        child = this.selectUct(node, start, count);
      }
      const cell = this.move[child]!;
      const bit = 1 << cell;
      path[++depth] = child;
      node = child;
      if (toMove === 0) x |= bit;
      else o |= bit;
      if (completesLine(this.board, toMove === 0 ? x : o, cell)) {
        this.proveTerminal(child, 2, toMove);
        break;
      }
      toMove ^= 1;
      if (((x | o) & full) === full) {
        this.proveTerminal(child, 1, DRAW);
        break;
      }
      if (t < count) {
        // A new leaf: one uniformly random rollout.
        this.outcome = this.rollout(x, o, toMove, cells - popcount(x | o));
        break;
      }
    }
    this.depth = depth;
  }

  /** A move that ended the game: `code` 2 (its mover won) or 1 (draw) is proven at once. */
  private proveTerminal(node: number, code: number, outcome: number): void {
    this.proven[node] = code;
    this.newlyProven = true;
    this.outcome = outcome;
  }

  /** First visit of `node` (position `x`, `o`): allocates every child, in shuffled order. */
  private expand(node: number, x: number, o: number): number {
    const { cells, full } = this.board;
    const scratch = this.scratch;
    const rng = this.rng!;
    this.ensure(this.used + cells);
    const start = this.used;
    let empty = full & ~(x | o);
    let n = 0;
    while (empty !== 0) {
      const low = empty & -empty;
      scratch[n++] = 31 - Math.clz32(low);
      empty ^= low;
    }
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor((rng.nextUint32() * (i + 1)) / TWO_POW_32);
      const t = scratch[i]!;
      scratch[i] = scratch[j]!;
      scratch[j] = t;
    }
    for (let i = 0; i < n; i++) this.newNode(scratch[i]!);
    this.childStart[node] = start;
    this.childCount[node] = n;
    return start;
  }

  /** UCT over the children of a fully tried node, skipping proven losses for the player to move. */
  private selectUct(node: number, start: number, count: number): number {
    const { visits, reward, proven, c } = this;
    const logN = Math.log(visits[node]!);
    let best = -1;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (let k = start; k < start + count; k++) {
      if (proven[k] === 0) continue;
      const n = visits[k]!;
      const score = reward[k]! / n + c * Math.sqrt(logN / n);
      if (score > bestScore) {
        bestScore = score;
        best = k;
      }
    }
    return best < 0 ? start : best; // every child lost: only reachable with the solver off
  }

  /** A uniformly random playout from `x`, `o` with `left` empty cells; returns the winner or `DRAW`. */
  private rollout(x: number, o: number, toMove: number, left: number): number {
    const board = this.board;
    const rng = this.rng!;
    let empty = board.full & ~(x | o);
    let who = toMove;
    let bx = x;
    let bo = o;
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
        if (completesLine(board, bx, rc)) return 0;
      } else {
        bo |= low;
        if (completesLine(board, bo, rc)) return 1;
      }
      who ^= 1;
    }
    return DRAW;
  }

  /** Backup: the node at depth d was moved into by player (rootToMove + d + 1) & 1. */
  private backup(): void {
    const { path, visits, reward, outcome } = this;
    for (let d = this.depth; d >= 0; d--) {
      const id = path[d]!;
      visits[id] = visits[id]! + 1;
      const mover = (this.rootToMove + d + 1) & 1;
      reward[id] = reward[id]! + (outcome === DRAW ? 0.5 : outcome === mover ? 1 : 0);
    }
  }

  /** MCTS-Solver: carries a new proof up the path while every parent becomes proven too. */
  private proveUpwards(): void {
    const { path, childStart, childCount, tried, proven } = this;
    for (let d = this.depth - 1; d >= 0; d--) {
      const id = path[d]!;
      const start = childStart[id]!;
      const count = childCount[id]!;
      const t = tried[id]!;
      let value = -2;
      let allProven = t === count;
      for (let k = start; k < start + t; k++) {
        const pv = proven[k]!;
        if (pv === OPEN) {
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

  /** The root's children and the final move: best (proven value, visits, total reward). */
  private result(sims: number): MctsSearchResult {
    const { visits, reward, proven, move } = this;
    const start = this.childStart[0]!;
    const count = this.tried[0]!;
    let best = start;
    const children: MctsChildStats[] = [];
    const rank = (k: number): number => {
      const pv = proven[k]!;
      return pv === OPEN ? 0 : pv - 1;
    };
    for (let k = start; k < start + count; k++) {
      const pv = proven[k]!;
      children.push({
        action: move[k]!,
        visits: visits[k]!,
        reward: reward[k]!,
        proven: pv === OPEN ? null : ((pv - 1) as ProvenValue),
      });
      if (k === start) continue;
      const rk = rank(k);
      const rb = rank(best);
      if (
        rk > rb ||
        (rk === rb &&
          (visits[k]! > visits[best]! || (visits[k] === visits[best] && reward[k]! > reward[best]!)))
      ) {
        best = k;
      }
    }
    const rootPv = proven[0]!;
    const rootValue = rootPv === 1 ? 0 : 1 - rootPv;
    return {
      action: move[best]!,
      simulations: sims,
      rootProven: rootPv === OPEN ? null : (rootValue as ProvenValue),
      children,
    };
  }
}

function popcount(v: number): number {
  let n = v >>> 0;
  n -= (n >>> 1) & 0x55555555;
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return Math.imul((n + (n >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}
