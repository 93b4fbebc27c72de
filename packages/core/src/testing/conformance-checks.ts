/** The env conformance checks: each plays the suite's tasks and throws a `Failure` at the first problem. */

import type { EnvStepV1 } from '@mage-rl/spec';
import { isJsonSafe } from '@mage-rl/spec';
import { createRng } from '../rng';
import {
  type ConformanceCheckName,
  fail,
  GARBAGE_RESPONSES,
  json,
  makeEpisode,
  playAttempt,
  type Suite,
} from './conformance-suite';

/** Version, id, turn limit, prompt styles, JSON-safe options and the game's version. */
function checkSpecShape<S, A>({ env }: Suite<S, A>): void {
  if (env.specificationVersion !== 'v1') fail(`specificationVersion is ${json(env.specificationVersion)}`);
  if (typeof env.id !== 'string' || env.id.length === 0) fail('id must be a non-empty string');
  if (!Number.isInteger(env.maxTurns) || env.maxTurns < 1) fail(`maxTurns must be a positive integer`);
  if (env.promptStyles.length === 0) fail('promptStyles is empty');
  if (!isJsonSafe(env.options)) fail('options are not JSON-safe');
  if (env.game.specificationVersion !== 'v1') fail('game.specificationVersion must be v1');
}

/** Two runs of two attempts with the same inputs give the same observations, steps and reveals. */
function checkDeterminism<S, A>(suite: Suite<S, A>): void {
  const { env } = suite;
  for (const t of suite.tasks) {
    const run = () => {
      const ep = makeEpisode(suite, t);
      const rng = createRng(`determinism/${t.seed}`);
      return json([playAttempt(env, ep, 0, rng), playAttempt(env, ep, 1, rng)]);
    };
    const a = run();
    const b = run();
    if (a !== b)
      fail(`seed ${t.seed}, seat ${t.seat}, style ${t.style}: two runs with the same inputs differ`);
  }
}

/** `reset(k)` after a played attempt restores attempt 0's observation, state and initial text. */
function checkRestartIdentity<S, A>(suite: Suite<S, A>): void {
  const { env } = suite;
  if (!suite.restartIdentity) return;
  for (const t of suite.tasks) {
    const ep = makeEpisode(suite, t);
    const first = ep.reset(0);
    const key0 = env.game.stateKey(ep.state);
    const text0 = ep.initialText();
    playAttempt(env, ep, 0, suite.rng.split(`restart/${t.seed}`));
    for (let k = 1; k <= 2; k++) {
      const again = ep.reset(k);
      if (json(again) !== json(first))
        fail(`seed ${t.seed}, seat ${t.seat}: reset(${k}) observation differs`);
      if (env.game.stateKey(ep.state) !== key0)
        fail(`seed ${t.seed}, seat ${t.seat}: reset(${k}) state differs`);
      if (ep.initialText() !== text0) fail(`seed ${t.seed}: initialText() changed after reset(${k})`);
      if (ep.turn !== 0 || ep.done) fail(`seed ${t.seed}: reset(${k}) left turn=${ep.turn}, done=${ep.done}`);
    }
  }
}

/** Garbage never parses; stepping it is invalid, rewards 0, keeps state and anchor and uses up the turn. */
function checkInvalidActions<S, A>(suite: Suite<S, A>): void {
  const { env } = suite;
  for (const t of suite.tasks) {
    const ep = makeEpisode(suite, t);
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
}

/** Every legal action of the initial state, formatted, parses back to the same action. */
function checkLegalActionsParse<S, A>(suite: Suite<S, A>): void {
  const { game } = suite.env;
  for (const t of suite.tasks) {
    const ep = makeEpisode(suite, t);
    ep.reset(0);
    for (const action of game.legalActions(ep.state)) {
      const parsed = ep.parse(suite.env.formatAction(action, t.style));
      if (!parsed.valid) fail(`formatAction(${game.actionKey(action)}) did not parse: ${parsed.reason}`);
      if (game.actionKey(parsed.action) !== game.actionKey(action)) {
        fail(`formatAction(${game.actionKey(action)}) parsed as ${game.actionKey(parsed.action)}`);
      }
    }
  }
}

/** Attempts end within `maxTurns` with an outcome on the last step only, even for an always-invalid player. */
function checkTurnLimit<S, A>(suite: Suite<S, A>): void {
  const { env } = suite;
  for (const t of suite.tasks) {
    const ep = makeEpisode(suite, t);
    for (let attempt = 0; attempt < 3; attempt++) {
      const trace = playAttempt(env, ep, attempt, suite.rng.split(`limit/${t.seed}/${attempt}`));
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
}

/** Anchors are non-empty, equal for equal tasks, and a function of the state (one anchor per state key). */
function checkStableAnchors<S, A>(suite: Suite<S, A>): void {
  const { env } = suite;
  for (const t of suite.tasks) {
    const a = makeEpisode(suite, t);
    const b = makeEpisode(suite, t);
    const anchorA = a.reset(0).anchor;
    if (typeof anchorA !== 'string' || anchorA.length === 0) fail('anchor must be a non-empty string');
    if (b.reset(0).anchor !== anchorA) fail(`seed ${t.seed}: equal tasks give different anchors`);
    const byState = new Map<string, string>();
    const record = (stateKey: string, anchor: string) => {
      const prev = byState.get(stateKey);
      if (prev !== undefined && prev !== anchor)
        fail(`state ${stateKey} has two anchors: ${prev} and ${anchor}`);
      byState.set(stateKey, anchor);
    };
    const ep = makeEpisode(suite, t);
    for (let attempt = 0; attempt < 3; attempt++) {
      const obs = ep.reset(attempt);
      record(env.game.stateKey(ep.state), obs.anchor);
      const rng = suite.rng.split(`anchor2/${t.seed}/${attempt}`);
      while (!ep.done) {
        const legal = env.game.legalActions(ep.state);
        const step = ep.step(ep.parse(legal.length === 0 ? '' : env.formatAction(rng.pick(legal), t.style)));
        if (!step.done) record(env.game.stateKey(ep.state), step.observation.anchor);
      }
    }
  }
}

/**
 * Observations and steps are JSON-safe; `rules()` is non-empty text; `reveal()` is nothing while an attempt
 * runs and text or undefined once it is over.
 */
function checkJsonSafe<S, A>(suite: Suite<S, A>): void {
  for (const t of suite.tasks) {
    const ep = makeEpisode(suite, t);
    ep.reset(0);
    if (ep.reveal() !== undefined) fail('reveal() must be undefined while an attempt runs');
    const trace = playAttempt(suite.env, ep, 0, suite.rng.split(`json/${t.seed}`));
    if (!isJsonSafe(trace.initial)) fail('reset() observation is not JSON-safe');
    trace.steps.forEach((s, i) => {
      if (!isJsonSafe(s)) fail(`step ${i} result is not JSON-safe`);
    });
    if (typeof ep.rules() !== 'string' || ep.rules().length === 0) fail('rules() must be non-empty text');
    const reveal = ep.reveal();
    if (reveal !== undefined && typeof reveal !== 'string')
      fail('reveal() must return a string or undefined');
  }
}

type Check = <S, A>(suite: Suite<S, A>) => void;

/** Every check by name. */
export const CHECKS: Readonly<Record<ConformanceCheckName, Check>> = {
  'spec-shape': checkSpecShape,
  determinism: checkDeterminism,
  'restart-identity': checkRestartIdentity,
  'invalid-actions': checkInvalidActions,
  'legal-actions-parse': checkLegalActionsParse,
  'turn-limit': checkTurnLimit,
  'stable-anchors': checkStableAnchors,
  'json-safe': checkJsonSafe,
};
