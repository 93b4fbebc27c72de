/** The teacher of an env by id. */

import { type EnvV1, type PolicyV1, UnknownIdError } from '@mage-rl/core';
import type { KuhnPokerEnv } from '@mage-rl/envs/kuhn-poker';
import type { SokobanEnv } from '@mage-rl/envs/sokoban';
import type { TicTacToeEnv } from '@mage-rl/envs/tictactoe';
import { type KuhnTeacherOptions, kuhnTeacher } from './kuhn-teacher';
import { type SokobanTeacherOptions, sokobanTeacher } from './sokoban-teacher';
import { type TicTacToeTeacherOptions, ticTacToeTeacher } from './tictactoe-teacher';

export const TEACHER_ENV_IDS = ['tictactoe', 'kuhn-poker', 'sokoban'] as const;

export type AnyTeacherOptions = KuhnTeacherOptions & SokobanTeacherOptions & TicTacToeTeacherOptions;

/**
 * The warm-start teacher of `env` (`tictactoe`, `kuhn-poker` or `sokoban`, built by `@mage-rl/envs`).
 * Throws `UnknownIdError` for other envs.
 */
export function createTeacher<S, A>(env: EnvV1<S, A>, options: AnyTeacherOptions = {}): PolicyV1 {
  switch (env.id) {
    case 'tictactoe':
      return ticTacToeTeacher(env as unknown as TicTacToeEnv, options);
    case 'kuhn-poker':
      return kuhnTeacher(env as unknown as KuhnPokerEnv, options);
    case 'sokoban':
      return sokobanTeacher(env as unknown as SokobanEnv, options);
    default:
      throw new UnknownIdError('teacher env', env.id, TEACHER_ENV_IDS);
  }
}
