import { runMetaEpisodes } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { resolveTrainConfig } from '../presets/resolve-config';
import { RUN_PRESET_IDS } from '../presets/run-presets';
import { createEnvById, createMemoryOfKind, opponentFactory } from '../wiring';
import { createTeacher, TEACHER_ENV_IDS } from './create-teacher';

/**
 * A teacher's note must fit the note budget of every preset that warm-starts, or the warm start learns
 * notes that evaluation cuts. Compact notes are whitespace-separated words of the embedded model's
 * word-level vocabulary: one token per word.
 */
describe('teacher notes fit the note budget and state their facts', () => {
  for (const env of TEACHER_ENV_IDS) {
    it(`${env}: every note of the reading and note-blind teachers, with mistakes, within maxTokens.reflect and stating all its attempt's facts`, async () => {
      let checked = 0;
      // `smoke` is a plumbing check: its 16-token note budget cuts notes on purpose, to stay fast.
      for (const preset of RUN_PRESET_IDS.filter((p) => p !== 'smoke')) {
        const config = resolveTrainConfig({}, { env, preset, method: 'mage' });
        if (config.warmStart.iterations === 0) continue;
        const e = createEnvById(env, config.env.options);
        const makeOpponent = opponentFactory(env);
        const opponents = makeOpponent ? config.eval.inDomain : [];
        const batch = await runMetaEpisodes({
          env: e,
          policy: createTeacher(e, { style: 'compact', adaptive: 0.5, mistakes: 0.1, noise: 0.1 }),
          memory: createMemoryOfKind('reflection'),
          ...(makeOpponent ? { opponents, makeOpponent } : {}),
          groups: Math.max(8, 2 * opponents.length),
          groupSize: 2,
          attempts: config.rollout.attempts,
          earlyStop: false,
          style: 'compact',
          seed: `note-budget/${env}`,
        });
        const words = batch.rows
          .filter((r) => r.phase === 'reflect')
          .map((r) => r.responseText.trim().split(/\s+/).length);
        expect(words.length).toBeGreaterThan(0);
        checked++;
        expect(Math.max(...words)).toBeLessThanOrEqual(config.rollout.maxTokens.reflect);
        // Factual notes state every fact of their attempt (events and reveal): what a reader could use.
        const recall = batch.rows.filter((r) => r.phase === 'reflect').map((r) => r.noteRecall);
        expect(recall.every((x) => x === 1)).toBe(true);
      }
      expect(checked).toBeGreaterThan(0);
    }, 60_000);
  }
});
