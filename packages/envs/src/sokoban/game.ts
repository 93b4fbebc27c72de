/**
 * The Sokoban game model (single player). An action is a sequence of primitive moves (the text face
 * allows up to 3 per turn); `legalActions` lists the single moves that are possible (not into a wall, not
 * pushing a box into a wall or another box). Terminal = solved; returns `[1]` when solved, else `[0]`.
 * Deadlocks are judged by the env (`isDeadlocked`), not by the game model.
 */

import { type GameModelV1, InvalidArgumentError, TERMINAL_PLAYER } from '@mage-rl/spec';
import {
  isSolved,
  SOKOBAN_MOVES,
  type SokobanMove,
  type SokobanState,
  sokobanStateKey,
  tryMove,
} from './room';

/** One turn's moves, in order. */
export type SokobanAction = readonly SokobanMove[];

const SINGLE: Readonly<Record<SokobanMove, SokobanAction>> = {
  up: ['up'],
  down: ['down'],
  left: ['left'],
  right: ['right'],
};

/** Apply moves in order, stopping once solved. Throws `InvalidArgumentError` on a blocked move. */
export function applySokoban(state: SokobanState, moves: SokobanAction): SokobanState {
  let s = state;
  for (const move of moves) {
    if (isSolved(s)) break;
    const r = tryMove(s, move);
    if (!r) throw new InvalidArgumentError(`Sokoban: '${move}' is blocked in state ${sokobanStateKey(s)}.`);
    s = r.state;
  }
  return s;
}

export const sokobanGame: GameModelV1<SokobanState, SokobanAction> = {
  specificationVersion: 'v1',
  numPlayers: 1,
  currentPlayer: (s) => (isSolved(s) ? TERMINAL_PLAYER : 0),
  legalActions: (s) =>
    isSolved(s) ? [] : SOKOBAN_MOVES.filter((m) => tryMove(s, m) !== null).map((m) => SINGLE[m]),
  apply: applySokoban,
  isTerminal: isSolved,
  returns: (s) => [isSolved(s) ? 1 : 0],
  actionKey: (a) => a.join(','),
  stateKey: sokobanStateKey,
};
