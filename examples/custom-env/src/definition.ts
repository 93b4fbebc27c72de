/**
 * Higher-Lower as an env package: the `EnvDefinitionV1` that `mage train --env-package` reads. It says how
 * to build the env, which training defaults differ from the generic ones, how to warm-start the embedded
 * model (a teacher and the words of the compact text) and what a success is called. A single-agent env
 * has no `opponents`; a two-player one would add its opponents and named populations.
 */

import {
  ConfigError,
  createRng,
  type EnvDefinitionV1,
  type EnvTeacherOptionsV1,
  type EnvV1,
  type PolicyRequestV1,
  type PolicyV1,
} from '@mage-rl/core';
import { createHigherLower, type HigherLowerOptions, type HigherLowerState } from './higher-lower.js';

const OPTION_KEYS = ['max', 'maxTurns'];

/**
 * The warm-start teacher: guesses a uniformly random number the hints still allow (it never bisects and
 * never reads its notes, so attempts fail often enough for the corpus to hold reflections), and writes
 * factual notes — the attempt's result and its guesses with their hints.
 */
function higherLowerTeacher(env: EnvV1<HigherLowerState, number>, options: EnvTeacherOptionsV1): PolicyV1 {
  const compact = (options.style ?? 'compact') === 'compact';
  const respond = (request: PolicyRequestV1): string => {
    const rng = createRng(`teacher/${request.seed ?? 0}`);
    const finished = request.facts?.finished;
    if (request.phase === 'reflect' && finished) {
      const result = finished.outcome.success ? 'won' : 'lost';
      const n = request.facts?.attempt ?? 1;
      return compact
        ? `<remark> attempt ${n} ${result} . ${finished.events.join(' . ')} </remark>`
        : `<remark>Attempt ${n} ${result}: ${finished.events.join(', ')}.</remark>`;
    }
    const info = request.facts?.observation?.info ?? {};
    const low = typeof info.low === 'number' ? info.low : 1;
    const high = typeof info.high === 'number' ? info.high : low;
    return env.formatAction(low + rng.int(high - low + 1), compact ? 'compact' : 'verbose');
  };
  return {
    specificationVersion: 'v1',
    id: 'teacher-higher-lower',
    generate: async (requests) =>
      requests.map((request) => ({
        text: respond(request),
        promptTokens: [],
        tokens: [],
        logprobs: [],
        finishReason: 'stop' as const,
      })),
  };
}

export const envDefinition: EnvDefinitionV1<HigherLowerState, number> = {
  specificationVersion: 'v1',
  id: 'higher-lower',
  description: 'Higher-Lower: find a hidden number from higher / lower hints (single agent)',
  create(options) {
    const unknown = Object.keys(options).filter((k) => !OPTION_KEYS.includes(k));
    if (unknown.length > 0) {
      throw new ConfigError(`higher-lower: unknown option(s) ${unknown.join(', ')}; known: max, maxTurns.`, {
        path: unknown[0] as string,
      });
    }
    return createHigherLower(options as HigherLowerOptions);
  },
  // Everything else comes from the generic env layer: no opponents, the agent plays first.
  defaults: {
    // One guess per attempt among 1..6: only the notes carry what an attempt found to the next.
    env: { options: { maxTurns: 1, max: 6 } },
    // The credit under which MAGE learned to read its notes here: a probe is credited with the later
    // attempts it makes win, each attempt is compared with the same attempt of the other rollouts, and
    // the notes stay out of the loss with the KL term keeping them faithful.
    advantage: {
      trajGamma: 0.9,
      invalidPenalty: 0.5,
      episodeScore: 'return',
      episodeBaseline: 'attempt',
      reflectWeight: 0,
    },
    ppo: { klCoef: 0.1 },
    // Out-of-domain: numbers up to 32.
    eval: { outOfDomainEnvOptions: [{ max: 32 }] },
  },
  // `mage train --env-package <this> --seed N` runs the `reading` budget (300 iterations, mini-batches of 8
  // rows) with laptop's warm-start corpus, as the published runs did; `--preset laptop` is a quick run.
  recipe: {
    preset: 'reading',
    values: { warmStart: { iterations: 8 } },
    results: 'docs/results/adaptation-from-scratch',
  },
  warmStart: {
    teacher: higherLowerTeacher,
    words: ['guess', 'to', 'answer', 'range', 'higher', 'lower', 'correct', 'attempt', 'won', 'lost', 'win'],
  },
  labels: { name: 'Higher-Lower', success: 'number found' },
};
