/**
 * The Sokoban warm-start teacher: the moves of an optimal solution (the envs' BFS solver),
 * mixed with a seeded fraction of random legal moves (noise), up to `movesPerTurn` moves per turn.
 * Reading its notes (a share of meta-episodes, `adaptive`), once its notes record an attempt it plays the
 * solver's moves only: it never repeats a deadlock or a run out of turns, and keeps what succeeded.
 */

import type { PolicyV1, Rng } from '@mage-rl/core';
import {
  isSolved,
  parseSokoban,
  SOKOBAN_MOVES,
  type SokobanAction,
  type SokobanEnv,
  type SokobanMove,
  type SokobanState,
  solveSokoban,
  tryMove,
} from '@mage-rl/envs/sokoban';
import { envTeacher, infoStrings, type TeacherOptions } from './teacher-policy';

export interface SokobanTeacherOptions extends TeacherOptions {
  /** Probability that a move is a uniformly random legal move instead of the solver's. Default 0.1. */
  readonly noise?: number;
  /** Probability that a turn plays fewer than `movesPerTurn` moves (format variety). Default 0.1. */
  readonly shortTurns?: number;
}

export interface SokobanTeacherMoveOptions {
  readonly movesPerTurn: number;
  readonly noise: number;
  readonly shortTurns: number;
}

function solution(state: SokobanState): SokobanMove[] | null {
  const result = solveSokoban(state, { maxNodes: 200_000 });
  return result.status === 'solved' ? result.solution : null;
}

/**
 * One turn of moves from `state`: 1..`movesPerTurn` moves, every one legal when played in order, none
 * after the room is solved. Empty only when no move is possible at all.
 */
export function sokobanTeacherMoves(
  state: SokobanState,
  rng: Rng,
  options: SokobanTeacherMoveOptions,
): SokobanMove[] {
  const count =
    options.movesPerTurn > 1 && rng.next() < options.shortTurns
      ? 1 + rng.int(options.movesPerTurn - 1)
      : options.movesPerTurn;
  const moves: SokobanMove[] = [];
  let s = state;
  let plan = solution(s);
  while (moves.length < count && !isSolved(s)) {
    const legal = SOKOBAN_MOVES.filter((m) => tryMove(s, m) !== null);
    if (legal.length === 0) break;
    let move: SokobanMove;
    const planned = plan?.[0];
    if (planned !== undefined && rng.next() >= options.noise) {
      move = planned;
      plan = (plan as SokobanMove[]).slice(1);
    } else {
      move = rng.pick(legal);
      plan = solution((tryMove(s, move) as { state: SokobanState }).state);
    }
    moves.push(move);
    s = (tryMove(s, move) as { state: SokobanState }).state;
  }
  return moves;
}

export function sokobanTeacher(env: SokobanEnv, options: SokobanTeacherOptions = {}): PolicyV1 {
  const id = 'teacher-sokoban';
  const perTurn = env.options.movesPerTurn;
  const moveOptions: SokobanTeacherMoveOptions = {
    movesPerTurn: typeof perTurn === 'number' ? perTurn : 3,
    noise: options.noise ?? 0.1,
    shortTurns: options.shortTurns ?? 0.1,
  };
  return envTeacher<SokobanAction>(env, id, options, (observation, rng, notes) => {
    const state = parseSokoban(infoStrings(observation, 'room', id));
    const exploit = notes.adaptive && notes.earlier.length > 0;
    const moves = sokobanTeacherMoves(state, rng, exploit ? { ...moveOptions, noise: 0 } : moveOptions);
    return moves.length > 0 ? moves : ['up'];
  });
}
