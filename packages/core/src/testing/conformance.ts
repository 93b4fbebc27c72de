/**
 * The env conformance suite: every environment package runs it. Framework-agnostic: it returns a list
 * of check results; `assertEnvConformance` throws; `@mage-rl/core/testing/vitest` registers tests.
 */

import type { EnvV1, OpponentV1, Seat } from '@mage-rl/spec';
import { ConformanceError } from '@mage-rl/spec';
import { createRng } from '../rng';
import { CHECKS } from './conformance-checks';
import { CONFORMANCE_CHECKS, type ConformanceCheckName, Failure, type Suite } from './conformance-suite';
import { randomLegalOpponent } from './scripted';

export { CONFORMANCE_CHECKS, type ConformanceCheckName, GARBAGE_RESPONSES } from './conformance-suite';

export interface ConformanceOptions<S, A> {
  /** Opponent for tasks of envs that need one. Default: uniformly random legal moves. */
  readonly opponent?: OpponentV1<S, A>;
  /** Task seeds to try. Default [1, 2, 3, 4, 5]. */
  readonly seeds?: readonly number[];
  /** Seats to try. Default both for envs that need an opponent, `first` otherwise. */
  readonly seats?: readonly Seat[];
  /** Whether `reset(k)` must restore attempt 0's initial state (false for per-attempt deals). */
  readonly restartIdentity?: boolean;
  /** Seed of the suite's own random choices. */
  readonly suiteSeed?: number;
}

export interface ConformanceCheck {
  readonly check: ConformanceCheckName;
  readonly ok: boolean;
  readonly message: string;
}

/** Runs every check and returns one result per check (never throws for a failing env). */
export function checkEnvConformance<S, A>(
  env: EnvV1<S, A>,
  options: ConformanceOptions<S, A> = {},
): ConformanceCheck[] {
  const seeds = options.seeds ?? [1, 2, 3, 4, 5];
  const seats: readonly Seat[] = options.seats ?? (env.needsOpponent ? ['first', 'second'] : ['first']);
  const suite: Suite<S, A> = {
    env,
    tasks: seeds.flatMap((seed) =>
      seats.flatMap((seat) => env.promptStyles.map((style) => ({ seed, seat, style }))),
    ),
    opponent: env.needsOpponent ? (options.opponent ?? randomLegalOpponent(env.game)) : undefined,
    restartIdentity: options.restartIdentity ?? true,
    rng: createRng(`conformance-suite/${options.suiteSeed ?? 0}`),
  };
  return CONFORMANCE_CHECKS.map((check) => {
    try {
      CHECKS[check](suite);
      return { check, ok: true, message: 'ok' };
    } catch (e) {
      const message = e instanceof Failure ? e.message : `threw: ${e instanceof Error ? e.stack : String(e)}`;
      return { check, ok: false, message };
    }
  });
}
/** Throws a `ConformanceError` listing every failed check. */
export function assertEnvConformance<S, A>(env: EnvV1<S, A>, options: ConformanceOptions<S, A> = {}): void {
  const failed = checkEnvConformance(env, options).filter((c) => !c.ok);
  if (failed.length > 0) {
    throw new ConformanceError(
      `Env '${env.id}' fails conformance: ${failed.map((c) => `${c.check}: ${c.message}`).join('; ')}`,
      { context: { env: env.id, failed } },
    );
  }
}
