/**
 * The env conformance suite (SPEC §2): every environment package runs it. Framework-agnostic: it returns
 * a list of check results; `assertEnvConformance` throws; `@mage-rl/core/testing/vitest` registers tests.
 */

import { ConformanceError } from '../errors';
import { isJsonSafe } from '../json';
import { createRng, type Rng } from '../rng';
import type { EnvEpisodeV1, EnvStepV1, EnvV1, OpponentV1, PromptStyle, Seat } from '../spec';
import { randomLegalOpponent } from './scripted';

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

interface Trace {
  readonly initial: unknown;
  readonly steps: EnvStepV1[];
}

class Failure extends Error {}

function fail(message: string): never {
  throw new Failure(message);
}

/** Plays one attempt with a seeded mix of legal moves and garbage. Returns everything it saw. */
function playAttempt<S, A>(env: EnvV1<S, A>, episode: EnvEpisodeV1<S, A>, attempt: number, rng: Rng): Trace {
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
  return { initial, steps };
}

function makeEpisode<S, A>(
  env: EnvV1<S, A>,
  seed: number,
  seat: Seat,
  style: PromptStyle,
  opponent: OpponentV1<S, A> | undefined,
): EnvEpisodeV1<S, A> {
  return env.createEpisode({
    seed,
    seat,
    style,
    rng: createRng(`conformance/${seed}`),
    ...(opponent ? { opponent } : {}),
  });
}

const json = (x: unknown): string => JSON.stringify(x);

/** Runs every check and returns one result per check (never throws for a failing env). */
export function checkEnvConformance<S, A>(
  env: EnvV1<S, A>,
  options: ConformanceOptions<S, A> = {},
): ConformanceCheck[] {
  const seeds = options.seeds ?? [1, 2, 3, 4, 5];
  const opponent = env.needsOpponent ? (options.opponent ?? randomLegalOpponent(env.game)) : undefined;
  const seats: readonly Seat[] = options.seats ?? (env.needsOpponent ? ['first', 'second'] : ['first']);
  const restartIdentity = options.restartIdentity ?? true;
  const suiteRng = createRng(`conformance-suite/${options.suiteSeed ?? 0}`);
  const styles = env.promptStyles;

  const tasks = seeds.flatMap((seed) =>
    seats.flatMap((seat) => styles.map((style) => ({ seed, seat, style }) as const)),
  );

  const checks: Record<ConformanceCheckName, () => void> = {
    'spec-shape': () => {
      if (env.specificationVersion !== 'v1')
        fail(`specificationVersion is ${json(env.specificationVersion)}`);
      if (typeof env.id !== 'string' || env.id.length === 0) fail('id must be a non-empty string');
      if (!Number.isInteger(env.maxTurns) || env.maxTurns < 1) fail(`maxTurns must be a positive integer`);
      if (styles.length === 0) fail('promptStyles is empty');
      if (!isJsonSafe(env.options)) fail('options are not JSON-safe');
      if (env.game.specificationVersion !== 'v1') fail('game.specificationVersion must be v1');
    },
    determinism: () => {
      for (const t of tasks) {
        const run = () => {
          const ep = makeEpisode(env, t.seed, t.seat, t.style, opponent);
          const rng = createRng(`determinism/${t.seed}`);
          return json([playAttempt(env, ep, 0, rng), playAttempt(env, ep, 1, rng)]);
        };
        const a = run();
        const b = run();
        if (a !== b)
          fail(`seed ${t.seed}, seat ${t.seat}, style ${t.style}: two runs with the same inputs differ`);
      }
    },
    'restart-identity': () => {
      if (!restartIdentity) return;
      for (const t of tasks) {
        const ep = makeEpisode(env, t.seed, t.seat, t.style, opponent);
        const first = ep.reset(0);
        const key0 = env.game.stateKey(ep.state);
        const text0 = ep.initialText();
        playAttempt(env, ep, 0, suiteRng.split(`restart/${t.seed}`));
        for (let k = 1; k <= 2; k++) {
          const again = ep.reset(k);
          if (json(again) !== json(first))
            fail(`seed ${t.seed}, seat ${t.seat}: reset(${k}) observation differs`);
          if (env.game.stateKey(ep.state) !== key0)
            fail(`seed ${t.seed}, seat ${t.seat}: reset(${k}) state differs`);
          if (ep.initialText() !== text0) fail(`seed ${t.seed}: initialText() changed after reset(${k})`);
          if (ep.turn !== 0 || ep.done)
            fail(`seed ${t.seed}: reset(${k}) left turn=${ep.turn}, done=${ep.done}`);
        }
      }
    },
    'invalid-actions': () => {
      for (const t of tasks) {
        const ep = makeEpisode(env, t.seed, t.seat, t.style, opponent);
        const obs = ep.reset(0);
        for (const garbage of GARBAGE_RESPONSES) {
          if (ep.done) break;
          let parsed: ReturnType<typeof ep.parse>;
          try {
            parsed = ep.parse(garbage);
          } catch (e) {
            fail(`parse() threw on ${json(garbage.slice(0, 40))}: ${String(e)}`);
          }
          if (parsed.valid) fail(`parse() accepted garbage ${json(garbage.slice(0, 40))}`);
          const before = env.game.stateKey(ep.state);
          const turn = ep.turn;
          let step: EnvStepV1;
          try {
            step = ep.step(parsed);
          } catch (e) {
            fail(`step(invalid) threw: ${String(e)}`);
          }
          if (step.valid) fail('step(invalid) returned valid: true');
          if (step.reward !== 0) fail(`step(invalid) gave reward ${step.reward}, expected 0`);
          if (env.game.stateKey(ep.state) !== before) fail('step(invalid) changed the state');
          if (ep.turn !== turn + 1) fail('step(invalid) did not consume the turn');
          if (step.observation.anchor !== obs.anchor) fail('step(invalid) changed the anchor');
        }
      }
    },
    'legal-actions-parse': () => {
      for (const t of tasks) {
        const ep = makeEpisode(env, t.seed, t.seat, t.style, opponent);
        ep.reset(0);
        for (const action of env.game.legalActions(ep.state)) {
          const parsed = ep.parse(env.formatAction(action, t.style));
          if (!parsed.valid)
            fail(`formatAction(${env.game.actionKey(action)}) did not parse: ${parsed.reason}`);
          if (env.game.actionKey(parsed.action) !== env.game.actionKey(action)) {
            fail(
              `formatAction(${env.game.actionKey(action)}) parsed as ${env.game.actionKey(parsed.action)}`,
            );
          }
        }
      }
    },
    'turn-limit': () => {
      for (const t of tasks) {
        const ep = makeEpisode(env, t.seed, t.seat, t.style, opponent);
        for (let attempt = 0; attempt < 3; attempt++) {
          const trace = playAttempt(env, ep, attempt, suiteRng.split(`limit/${t.seed}/${attempt}`));
          if (!ep.done) fail(`seed ${t.seed}: attempt not done after maxTurns=${env.maxTurns} turns`);
          if (trace.steps.length > env.maxTurns) fail(`seed ${t.seed}: more than maxTurns turns`);
          const last = trace.steps.at(-1);
          if (last && (!last.done || !last.outcome)) fail(`seed ${t.seed}: final step lacks done/outcome`);
          trace.steps.slice(0, -1).forEach((s, i) => {
            if (s.done) fail(`seed ${t.seed}: step ${i} is done but play continued`);
          });
        }
        // An always-invalid player must also be stopped by the limit.
        ep.reset(3);
        let n = 0;
        while (!ep.done && n <= env.maxTurns) {
          ep.step(ep.parse(''));
          n++;
        }
        if (n !== env.maxTurns || !ep.done)
          fail(`an always-invalid attempt ran ${n} turns, expected ${env.maxTurns}`);
      }
    },
    'stable-anchors': () => {
      for (const t of tasks) {
        const a = makeEpisode(env, t.seed, t.seat, t.style, opponent);
        const b = makeEpisode(env, t.seed, t.seat, t.style, opponent);
        const anchorA = a.reset(0).anchor;
        if (typeof anchorA !== 'string' || anchorA.length === 0) fail('anchor must be a non-empty string');
        if (b.reset(0).anchor !== anchorA) fail(`seed ${t.seed}: equal tasks give different anchors`);
        // The anchor is a function of the state: reaching the same state twice gives the same anchor.
        const byState = new Map<string, string>();
        const ep = makeEpisode(env, t.seed, t.seat, t.style, opponent);
        const check = (stateKey: string, anchor: string) => {
          const prev = byState.get(stateKey);
          if (prev !== undefined && prev !== anchor)
            fail(`state ${stateKey} has two anchors: ${prev} and ${anchor}`);
          byState.set(stateKey, anchor);
        };
        for (let attempt = 0; attempt < 3; attempt++) {
          const obs = ep.reset(attempt);
          check(env.game.stateKey(ep.state), obs.anchor);
          const rng = suiteRng.split(`anchor2/${t.seed}/${attempt}`);
          while (!ep.done) {
            const legal = env.game.legalActions(ep.state);
            const response = legal.length === 0 ? '' : env.formatAction(rng.pick(legal), t.style);
            const step = ep.step(ep.parse(response));
            if (!step.done) check(env.game.stateKey(ep.state), step.observation.anchor);
          }
        }
      }
    },
    'json-safe': () => {
      for (const t of tasks) {
        const ep = makeEpisode(env, t.seed, t.seat, t.style, opponent);
        const trace = playAttempt(env, ep, 0, suiteRng.split(`json/${t.seed}`));
        if (!isJsonSafe(trace.initial)) fail('reset() observation is not JSON-safe');
        trace.steps.forEach((s, i) => {
          if (!isJsonSafe(s)) fail(`step ${i} result is not JSON-safe`);
        });
        if (typeof ep.rules() !== 'string' || ep.rules().length === 0) fail('rules() must be non-empty text');
        const reveal = ep.reveal();
        if (reveal !== undefined && typeof reveal !== 'string')
          fail('reveal() must return a string or undefined');
      }
    },
  };

  return CONFORMANCE_CHECKS.map((check) => {
    try {
      checks[check]();
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
