/**
 * The MAGE loop of `@mage-rl/core`, unchanged, training through the Tinker learner against the fake
 * service: Nim against a random opponent (core's test env), gigpo's advantages and PPO token loss,
 * sampled and trained remotely. Then a run aborted after a checkpoint and resumed by a new learner in a
 * new session must end exactly where the uninterrupted run does.
 */

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  AbortedError,
  type EvalStatsV1,
  runTraining,
  type TrainingEvent,
  type TrainingOptions,
} from '@mage-rl/core';
import {
  createNimEnv,
  type NimAction,
  type NimState,
  nimGame,
  randomLegalOpponent,
} from '@mage-rl/core/testing';
import { computeAdvantageColumns, ppoTokenLoss, rowsToAdvantageInputs } from '@mage-rl/gigpo';
import { createMemory } from '@mage-rl/reflection';
import { describe, expect, it } from 'vitest';
import { createTinkerClient } from './client/tinker-client';
import { createTinkerLearner, type TinkerLearner } from './learner/tinker-learner';
import type { FakeTinker } from './testing/fake-service';
import { useFakeTinker } from './testing/fake-tinker.test-helper';
import { createTestTokenizer } from './testing/test-tokenizer';

const tokenizer = createTestTokenizer(['<action>1</action>', '<action>2</action>']);
const fakeOptions = {
  vocabSize: tokenizer.vocabSize,
  decode: tokenizer.decode,
  eosTokenIds: tokenizer.eosTokenIds,
};
const tinker = useFakeTinker();

function learnerOn(f: FakeTinker, learningRate = 0.2): Promise<TinkerLearner> {
  return createTinkerLearner({
    client: createTinkerClient({ baseURL: f.baseURL, heartbeatMs: 0 }),
    baseModel: 'fake/base',
    loraRank: 4,
    tokenizer,
    seed: 'learner',
    adam: { learningRate },
  });
}

function nimOptions(
  learner: TinkerLearner,
  overrides: Partial<TrainingOptions<NimState, NimAction>> = {},
): TrainingOptions<NimState, NimAction> {
  return {
    env: createNimEnv(),
    learner,
    memory: createMemory({ mode: 'none' }),
    opponents: ['random'],
    makeOpponent: (id) => randomLegalOpponent(nimGame, id),
    advantages: (rows) => computeAdvantageColumns(rowsToAdvantageInputs(rows)).advantages,
    loss: ppoTokenLoss(),
    seed: 7,
    iterations: 4,
    rollout: { groups: 4, groupSize: 4, attempts: 1, style: 'compact', maxTokens: { play: 1, reflect: 1 } },
    update: { entropyCoef: 0 },
    ...overrides,
  };
}

/** metrics.jsonl without the wall-clock fields. */
async function metricsOf(runDir: string): Promise<unknown[]> {
  const text = await readFile(join(runDir, 'metrics.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const { timing: _timing, ...rest } = JSON.parse(line) as Record<string, unknown>;
      return rest;
    });
}

describe('training through the Tinker learner (fake service; slow: thousands of HTTP round trips)', () => {
  it("runs core's MAGE loop end to end and learns to win more often", { timeout: 120_000 }, async () => {
    const fake = await tinker.start(fakeOptions);
    const learner = await learnerOn(fake, 0.5);
    const evals: EvalStatsV1[] = [];
    const events: TrainingEvent[] = [];
    await runTraining({
      ...nimOptions(learner, {
        iterations: 10,
        rollout: {
          groups: 8,
          groupSize: 4,
          attempts: 1,
          style: 'compact',
          maxTokens: { play: 1, reflect: 1 },
        },
        evaluation: { every: 10, atStart: true, episodes: 32, inDomain: { opponents: ['random'] } },
      }),
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'eval-end') evals.push(e);
      },
    });
    const updates = events.filter((e) => e.type === 'update-end');
    expect(updates).toHaveLength(10);
    expect(updates.every((u) => u.type === 'update-end' && u.steps === 1)).toBe(true);
    expect(fake.steps(learner.modelId)).toBe(10);
    // Rollouts sampled from the sampler weights each update published.
    const samples = fake.requests.filter((r) => r.endpoint === '/api/v1/asample');
    const paths = new Set(samples.map((r) => (r.body as { model_path?: string }).model_path ?? 'base'));
    expect(paths.size).toBe(11);
    const win = (e: EvalStatsV1 | undefined) =>
      e?.inDomain?.overall.perAttempt[0]?.passAtK.rate ?? Number.NaN;
    expect(evals).toHaveLength(2);
    // Seeded throughout: 0.44 → 0.88 on every run.
    expect(win(evals[0])).toBeLessThan(0.5);
    expect(win(evals[1])).toBeGreaterThan(0.8);
    await learner.dispose();
  });

  it('resumes a run aborted after a checkpoint in a new session and ends where the uninterrupted run ends', {
    timeout: 120_000,
  }, async () => {
    const fake = await tinker.start(fakeOptions);
    const checkpoints = { every: 1, keep: 2 };

    const whole = await tinker.tempDir('mage-tinker-run-');
    const uninterrupted = await learnerOn(fake);
    await runTraining({ ...nimOptions(uninterrupted, { runDir: whole, checkpoints }) });

    const split = await tinker.tempDir('mage-tinker-run-');
    const killed = await learnerOn(fake);
    const controller = new AbortController();
    const run = runTraining({
      ...nimOptions(killed, { runDir: split, checkpoints, signal: controller.signal }),
      onEvent: (e) => {
        if (e.type === 'checkpoint-saved' && e.iteration === 1) controller.abort();
      },
    });
    await expect(run).rejects.toThrow(AbortedError);
    // The process is gone: its session and model are never used again.
    await killed.dispose();

    const restarted = await learnerOn(fake);
    expect(restarted.modelId).not.toBe(killed.modelId);
    await runTraining({ ...nimOptions(restarted, { runDir: split, checkpoints, resume: true }) });

    expect(await metricsOf(split)).toEqual(await metricsOf(whole));
    expect(restarted.step).toBe(uninterrupted.step);
    const probe = [
      {
        promptTokens: tokenizer.encodeChat([{ role: 'user', content: 'probe' }]),
        responseTokens: [0, 1, 2],
      },
    ];
    expect([...((await restarted.logprobs(probe))[0] ?? [])]).toEqual([
      ...((await uninterrupted.logprobs(probe))[0] ?? []),
    ]);
    const state = JSON.parse(
      await readFile(join(split, 'checkpoints', 'iter-000003', 'tinker-learner.json'), 'utf8'),
    ) as { statePath: string; modelId: string };
    expect(state.modelId).toBe(restarted.modelId);
    expect(state.statePath).toMatch(/^tinker:\/\//);
  });
});
