/**
 * The Doors game model (single player, a bandit): a prize behind one of N doors; an action opens a door
 * (1-based) and the attempt ends. `stateKey` keys only what the agent sees (the door count, the opened
 * door and what was behind it), never the prize door.
 */

import { type GameModelV1, TERMINAL_PLAYER } from '@mage-rl/spec';

export const DOORS_MIN = 2;
export const DOORS_MAX = 9;

/** An opened door, 1-based. */
export type DoorsAction = number;

export interface DoorsState {
  readonly doors: number;
  /** The prize door (1-based); the agent never sees it. */
  readonly prize: number;
  /** The door opened in this attempt, if any. */
  readonly opened: number | null;
}

export function initialDoorsState(doors: number, prize: number): DoorsState {
  return { doors, prize, opened: null };
}

export const doorsWon = (s: DoorsState): boolean => s.opened === s.prize;

export function doorsKey(s: DoorsState): string {
  return s.opened === null ? `${s.doors}:-` : `${s.doors}:${s.opened}${doorsWon(s) ? 'P' : 'E'}`;
}

export function doorsGame(doors: number): GameModelV1<DoorsState, DoorsAction> {
  const all = Array.from({ length: doors }, (_, i) => i + 1);
  return {
    specificationVersion: 'v1',
    numPlayers: 1,
    currentPlayer: (s) => (s.opened === null ? 0 : TERMINAL_PLAYER),
    legalActions: (s) => (s.opened === null ? all : []),
    apply: (s, door) => ({ ...s, opened: door }),
    isTerminal: (s) => s.opened !== null,
    returns: (s) => [doorsWon(s) ? 1 : 0],
    actionKey: (door) => String(door),
    stateKey: doorsKey,
  };
}
