/** What the conformance checks share: the check names, the garbage responses, the tasks and how to play. */

import type { EnvEpisodeV1, EnvStepV1, EnvV1, OpponentV1, PromptStyle, Seat } from '@mage-rl/spec';
import { createRng, type Rng } from '../rng';

export const CONFORMANCE_CHECKS = [
  'spec-shape',
  'determinism',
  'restart-identity',
  'invalid-actions',
  'legal-actions-parse',
  'turn-limit',
  'stable-anchors',
  'json-safe',
] as const;
export type ConformanceCheckName = (typeof CONFORMANCE_CHECKS)[number];

/** Responses that no env should accept, plus some that exercise parsers. */
export const GARBAGE_RESPONSES: readonly string[] = [
  '',
  'hello',
  '<action></action>',
  '<action>',
  '</action><action>zzz',
  '<action>??? 99 99 ???</action>',
  '<action><action>(,)</action></action>',
  '\u0000\uffff\ud83d\ude00 <remark>x</remark>',
  'x'.repeat(100_000),
];

/** One task the checks play: every seed × seat × prompt style. */
export interface SuiteTask {
  readonly seed: number;
  readonly seat: Seat;
  readonly style: PromptStyle;
}

/** The env under test and the suite's settings. */
export interface Suite<S, A> {
  readonly env: EnvV1<S, A>;
  readonly tasks: readonly SuiteTask[];
  /** The opponent of envs that need one. */
  readonly opponent: OpponentV1<S, A> | undefined;
  readonly restartIdentity: boolean;
  /** The suite's own random choices (split by label, so checks do not affect each other). */
  readonly rng: Rng;
}

/** A failed check: its message is the check's result. */
export class Failure extends Error {}

export function fail(message: string): never {
  throw new Failure(message);
}

export const json = (x: unknown): string => JSON.stringify(x);

/** A fresh episode of the task, with the env's randomness seeded from the task seed. */
export function makeEpisode<S, A>(suite: Suite<S, A>, task: SuiteTask): EnvEpisodeV1<S, A> {
  const { seed, seat, style } = task;
  return suite.env.createEpisode({
    seed,
    seat,
    style,
    rng: createRng(`conformance/${seed}`),
    ...(suite.opponent ? { opponent: suite.opponent } : {}),
  });
}

export interface Trace {
  readonly initial: unknown;
  readonly steps: EnvStepV1[];
  /** What the episode revealed once the attempt was over (`null` for nothing). */
  readonly reveal: string | null;
}

/** Plays one attempt with a seeded mix of legal moves and garbage. Returns everything it saw. */
export function playAttempt<S, A>(
  env: EnvV1<S, A>,
  episode: EnvEpisodeV1<S, A>,
  attempt: number,
  rng: Rng,
): Trace {
  const initial = episode.reset(attempt);
  const steps: EnvStepV1[] = [];
  for (let guard = 0; !episode.done && guard <= env.maxTurns; guard++) {
    const legal = env.game.legalActions(episode.state);
    const response =
      legal.length === 0 || rng.next() < 0.25
        ? rng.pick(GARBAGE_RESPONSES)
        : env.formatAction(rng.pick(legal), episode.task.style);
    steps.push(episode.step(episode.parse(response)));
  }
  return { initial, steps, reveal: episode.reveal() ?? null };
}
