/**
 * A play agent for tests: a game's scripted warm-start teacher (Tic-Tac-Toe by default), which plays the
 * game and writes reflections. `seats: 'second'` makes the person move first; `method: 'react'` plays
 * without reflections, so nothing is written between attempts; `forfeitFrom` makes it give up attempts.
 */

import type { GameModelV1, OpponentV1, PlayAgentV1, PolicyV1 } from '@mage-rl/core';
import { createEnvById, createTeacher, envDefinition, evaluateMethod } from '@mage-rl/recipes';

export interface TeacherAgentOptions {
  /** Default: `teacher`, which is also its name. */
  readonly id?: string;
  readonly game?: 'tictactoe' | 'kuhn-poker';
  /** The agent's seat. Default: first. */
  readonly seats?: 'first' | 'second';
  /** Default: reflexion. */
  readonly method?: 'reflexion' | 'react';
  /**
   * From this attempt on, the agent answers every turn with text that is no move, so the env's turn limit
   * ends the attempt; sitting first, it ends the attempt before the person has moved. Default: never.
   */
  readonly forfeitFrom?: number;
}

/** What a forfeiting agent answers: no `<action>` block, an invalid turn (and an invalid reflection). */
const NO_MOVE = 'I give up.';

/** `policy`, answering `NO_MOVE` to every request of attempt `from` or later. */
function forfeiting(policy: PolicyV1, from: number): PolicyV1 {
  return {
    specificationVersion: 'v1',
    id: `${policy.id}-forfeiting`,
    generate: (requests, options) =>
      Promise.all(
        requests.map(async (request) =>
          (request.facts?.attempt ?? 0) >= from
            ? { text: NO_MOVE, promptTokens: [], tokens: [], logprobs: [], finishReason: 'stop' as const }
            : (await policy.generate([request], options))[0]!,
        ),
      ),
  };
}

export function teacherAgent(options: TeacherAgentOptions = {}): PlayAgentV1 {
  const id = options.id ?? 'teacher';
  const game = options.game ?? 'tictactoe';
  const env = createEnvById(game, {});
  const teacher = createTeacher(env, { style: 'verbose' });
  const policy = options.forfeitFrom === undefined ? teacher : forfeiting(teacher, options.forfeitFrom);
  return {
    id,
    name: id,
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
