import { runMetaEpisodes } from '@mage-rl/core';
import { constantPolicy } from '@mage-rl/core/testing';
import { describe, expect, it } from 'vitest';
import { resolveTrainConfig } from '../presets/resolve-config';
import { createEnvById, createMemoryOfKind, opponentFactory } from '../wiring';

/** Answers nothing an env can parse, so every hand or game runs into the turn limit. */
const staller = constantPolicy('hmm');

/**
 * A game stopped by the turn limit scores as a loss in every two-player env, in training and evaluation:
 * were it scored 0, a policy could stall with invalid answers instead of losing (Kuhn: instead of folding),
 * a move the exact tools (best response, adaptation ceiling) do not have.
 */
describe('stalling never beats losing', () => {
  for (const [env, loss] of [
    ['kuhn-poker', -5],
    ['tictactoe', -10],
  ] as const) {
    it(`${env}: a game cut by the turn limit returns the loss (${loss})`, async () => {
      const config = resolveTrainConfig({}, { env, preset: 'laptop', method: 'mage' });
      for (const options of [config.env.options, { ...config.env.options, ...config.eval.envOptions }]) {
        const batch = await runMetaEpisodes({
          env: createEnvById(env, options),
          policy: staller,
          memory: createMemoryOfKind('none'),
          opponents: config.eval.inDomain,
          makeOpponent: opponentFactory(env)!,
          groups: 2 * config.eval.inDomain.length,
          groupSize: 1,
          attempts: 1,
          seed: `stalling/${env}`,
        });
        const attempts = batch.slots.flatMap((s) => s.attempts);
        expect(attempts.every((a) => a.outcome.truncated)).toBe(true);
        expect(new Set(attempts.map((a) => a.return))).toEqual(new Set([loss]));
      }
    });
  }
});
