/** The teacher of an env by id, from its definition in the env registry. */

import { type EnvV1, type PolicyV1, UnknownIdError } from '@mage-rl/core';
import { envRegistry, FIRST_PARTY_ENV_DEFINITIONS } from '../environments/registry';
import type { KuhnTeacherOptions } from './kuhn-teacher';
import type { SokobanTeacherOptions } from './sokoban-teacher';
import type { TicTacToeTeacherOptions } from './tictactoe-teacher';

/** The first-party envs that have a teacher. */
export const TEACHER_ENV_IDS: readonly string[] = FIRST_PARTY_ENV_DEFINITIONS.filter((d) => d.warmStart).map(
  (d) => d.id,
);

export type AnyTeacherOptions = KuhnTeacherOptions & SokobanTeacherOptions & TicTacToeTeacherOptions;

/**
 * The warm-start teacher of `env` (its definition's `warmStart.teacher`); each teacher reads the options
 * it knows. Throws `UnknownIdError` (listing the envs that have one) for envs without a teacher.
 */
export function createTeacher<S, A>(env: EnvV1<S, A>, options: AnyTeacherOptions = {}): PolicyV1 {
  const registry = envRegistry();
  const warmStart = registry.has(env.id) ? registry.get(env.id).warmStart : undefined;
  if (!warmStart) {
    const known = registry.definitions.filter((d) => d.warmStart).map((d) => d.id);
    throw new UnknownIdError('teacher env', env.id, known);
  }
  return warmStart.teacher(env, options);
}
