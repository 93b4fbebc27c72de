/**
 * A play agent for tests: a game's scripted warm-start teacher (Tic-Tac-Toe by default), which plays the
 * game and writes reflections. `seats: 'second'` makes the person move first; `method: 'react'` plays
 * without reflections, so nothing is written between attempts.
 */

import type { GameModelV1, OpponentV1, PlayAgentV1 } from '@mage-rl/core';
import { createEnvById, createTeacher, envDefinition, evaluateMethod } from '@mage-rl/recipes';

export interface TeacherAgentOptions {
  readonly game?: 'tictactoe' | 'kuhn-poker';
  /** The agent's seat. Default: first. */
  readonly seats?: 'first' | 'second';
  /** Default: reflexion. */
  readonly method?: 'reflexion' | 'react';
}

export function teacherAgent(options: TeacherAgentOptions = {}): PlayAgentV1 {
  const game = options.game ?? 'tictactoe';
  const env = createEnvById(game, {});
  const policy = createTeacher(env, { style: 'verbose' });
  return {
    id: 'teacher',
    name: 'teacher',
    game,
    model: envDefinition(game).opponents!.match!.model as GameModelV1<unknown, unknown>,
    async play(opponent: OpponentV1<unknown, unknown>, seed: number, attempts: number) {
      const result = await evaluateMethod({
        env,
        policy,
        method: options.method ?? 'reflexion',
        opponents: [opponent.id],
        makeOpponent: () => opponent,
        episodes: 1,
        attempts,
        earlyStop: false,
        seats: options.seats ?? 'first',
        seed,
      });
      return result.batch;
    },
  };
}
