/**
 * The six preferred-pattern Tic-Tac-Toe players of the training population: fixed priority orders of
 * cells, playing the first empty one. They never block or complete lines on purpose.
 */

import { type TicTacToeAction, type TicTacToeState, ticTacToeGame } from '@mage-rl/envs/tictactoe';
import { InvalidArgumentError, RolloutError } from '@mage-rl/spec';
import type { PolicyOpponentV1 } from '../strategy/policy-opponent';

export const PATTERN_NAMES = [
  'centre-first',
  'corners-first',
  'edges-first',
  'main-diagonal-first',
  'anti-diagonal-first',
  'bottom-right-sweep',
] as const;
export type PatternName = (typeof PATTERN_NAMES)[number];

/**
 * The priority order of cells (0-based indices `row * size + col`) of a pattern. On 3×3 these are exactly
 * the reference orders pinned by `tictactoe-opponents.test.ts`; on larger boards the same geometric idea
 * (centre cells, corners, border "edges", diagonals) with the remaining cells appended in index order.
 */
export function patternOrder(name: PatternName, size = 3): number[] {
  if (!PATTERN_NAMES.includes(name)) {
    throw new InvalidArgumentError(`Unknown pattern '${name}'; known: ${PATTERN_NAMES.join(', ')}.`);
  }
  const n = size;
  const at = (r: number, c: number) => r * n + c;
  const all = Array.from({ length: n * n }, (_, i) => i);
  const lo = Math.floor((n - 1) / 2);
  const hi = Math.ceil((n - 1) / 2);
  const centre = all.filter((i) => {
    const r = Math.floor(i / n);
    const c = i % n;
    return r >= lo && r <= hi && c >= lo && c <= hi;
  });
  const corners = [at(0, 0), at(0, n - 1), at(n - 1, 0), at(n - 1, n - 1)];
  const edges = all.filter((i) => {
    const r = Math.floor(i / n);
    const c = i % n;
    return (r === 0 || c === 0 || r === n - 1 || c === n - 1) && !corners.includes(i);
  });
  const main = Array.from({ length: n }, (_, i) => at(i, i));
  const anti = Array.from({ length: n }, (_, i) => at(i, n - 1 - i));
  // Each pattern's cell groups in priority order.
  const groups: Record<PatternName, readonly (readonly number[])[]> = {
    'centre-first': [centre, corners, edges],
    'corners-first': [corners, centre, edges],
    'edges-first': [edges, centre, corners],
    'main-diagonal-first': [main, corners, edges],
    'anti-diagonal-first': [anti, corners, edges],
    // 3×3: (3,3) (3,1) (1,3) (1,1) (2,2) (3,2) (2,3) (2,1) (1,2) — corners, centre, then edges from the bottom right.
    'bottom-right-sweep': [
      [at(n - 1, n - 1), at(n - 1, 0), at(0, n - 1), at(0, 0)],
      centre,
      [...edges].reverse(),
    ],
  };
  const order = groups[name].flat();
  const seen = new Set<number>();
  const out: number[] = [];
  for (const i of [...order, ...all]) {
    if (!seen.has(i)) {
      seen.add(i);
      out.push(i);
    }
  }
  return out;
}

export function patternOpponent(name: PatternName): PolicyOpponentV1<TicTacToeState, TicTacToeAction> {
  const orders = new Map<number, number[]>();
  const id = `pattern-${name}`;
  patternOrder(name); // validate eagerly
  const cellOf = (state: TicTacToeState): number => {
    let order = orders.get(state.size);
    if (!order) {
      order = patternOrder(name, state.size);
      orders.set(state.size, order);
    }
    const taken = state.x | state.o;
    if (state.winner === null) {
      for (const cell of order) if ((taken & (1 << cell)) === 0) return cell;
    }
    throw new RolloutError('OPPONENT_FAILURE', `Opponent '${id}' was asked to move in a finished game.`);
  };
  return {
    specificationVersion: 'v1',
    id,
    // Deterministic: probability 1 on its cell among the legal moves.
    policy: (state) => {
      const cell = cellOf(state);
      return ticTacToeGame(state.size)
        .legalActions(state)
        .map((action) => (action === cell ? 1 : 0));
    },
    act: (state) => cellOf(state),
  };
}
