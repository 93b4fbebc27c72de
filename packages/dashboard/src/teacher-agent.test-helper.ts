/** A play agent for tests: the scripted warm-start teacher, which plays Tic-Tac-Toe and writes reflections. */

import type { GameModelV1, OpponentV1, PlayAgentV1 } from '@mage-rl/core';
import { createEnvById, createTeacher, envDefinition, evaluateMethod } from '@mage-rl/recipes';

export function teacherAgent(): PlayAgentV1 {
  const env = createEnvById('tictactoe', {});
  const policy = createTeacher(env, { style: 'verbose' });
  return {
    id: 'teacher',
    name: 'teacher',
    game: 'tictactoe',
    model: envDefinition('tictactoe').opponents!.match!.model as GameModelV1<unknown, unknown>,
    async play(opponent: OpponentV1<unknown, unknown>, seed: number, attempts: number) {
      const result = await evaluateMethod({
        env,
        policy,
        method: 'reflexion',
        opponents: [opponent.id],
        makeOpponent: () => opponent,
        episodes: 1,
        attempts,
        earlyStop: false,
        seed,
      });
      return result.batch;
    },
  };
}
