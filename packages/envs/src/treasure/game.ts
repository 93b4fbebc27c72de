/**
 * The Treasure game model (single player): a hidden cell of a width×height grid; an action probes a cell
 * (0-based row-major index) and is answered `found` or with a direction hint. The state records the probes
 * of the current attempt; `stateKey` keys only what the agent sees (grid size, probes and their hints),
 * never the hidden cell, so equal keys are equal observations.
 */

import { type GameModelV1, TERMINAL_PLAYER } from '@mage-rl/spec';

export const TREASURE_MIN_SIZE = 2;
export const TREASURE_MAX_SIZE = 9;

/** A probed cell, 0-based row-major (`row * width + col`). */
export type TreasureAction = number;

export interface TreasureState {
  readonly width: number;
  readonly height: number;
  /** The hidden cell (row-major); the agent never sees it. */
  readonly target: number;
  /** The cells probed in this attempt, in order. */
  readonly probes: readonly number[];
  readonly found: boolean;
}

/** −1: the target is north (row) / west (column) of the probe; 0: same row / column; 1: south / east. */
export type AxisHint = -1 | 0 | 1;

export interface TreasureHint {
  readonly found: boolean;
  readonly row: AxisHint;
  readonly col: AxisHint;
}

export function initialTreasureState(width: number, height: number, target: number): TreasureState {
  return { width, height, target, probes: [], found: false };
}

/** The answer to a probe of `cell` when the target is `target` on a grid `width` wide. */
export function treasureHint(width: number, target: number, cell: number): TreasureHint {
  const sign = (d: number): AxisHint => (d < 0 ? -1 : d > 0 ? 1 : 0);
  const row = sign(Math.floor(target / width) - Math.floor(cell / width));
  const col = sign((target % width) - (cell % width));
  return { found: row === 0 && col === 0, row, col };
}

export function applyTreasure(state: TreasureState, cell: TreasureAction): TreasureState {
  return { ...state, probes: [...state.probes, cell], found: state.found || cell === state.target };
}

/** `F` (found), else `N`/`S` then `W`/`E`: `SE`, `N`, `W`. */
const hintCode = (h: TreasureHint) =>
  h.found ? 'F' : `${h.row < 0 ? 'N' : h.row > 0 ? 'S' : ''}${h.col < 0 ? 'W' : h.col > 0 ? 'E' : ''}`;

/** What the agent sees: grid size, and each probe of the attempt with its answer. */
export function treasureKey(s: TreasureState): string {
  const probes = s.probes.map((p) => `${p}${hintCode(treasureHint(s.width, s.target, p))}`);
  return `${s.height}x${s.width}:${probes.join(',')}`;
}

export function treasureGame(width: number, height: number): GameModelV1<TreasureState, TreasureAction> {
  const cells = Array.from({ length: width * height }, (_, i) => i);
  return {
    specificationVersion: 'v1',
    numPlayers: 1,
    currentPlayer: (s) => (s.found ? TERMINAL_PLAYER : 0),
    // Probing a cell again is legal (and tells nothing new).
    legalActions: (s) => (s.found ? [] : cells),
    apply: applyTreasure,
    isTerminal: (s) => s.found,
    returns: (s) => [s.found ? 1 : 0],
    actionKey: (cell) => String(cell),
    stateKey: treasureKey,
  };
}
