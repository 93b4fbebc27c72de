import { type RowRecord, runTraining, type TrainingEvent } from '@mage-rl/core';
import { createTabularLearner } from '@mage-rl/core/testing';
import { computeAdvantages, rowsToAdvantageInputs } from '@mage-rl/gigpo';
import { describe, expect, it } from 'vitest';
import { advantageOptionsOf, resolveTrainConfig, rowGroupingOf } from '../presets';
import { makeAdvantageColumnFn, trainingEvaluationOf, trainingOptionsOf } from './training-options';

const CANDIDATES = ['<action> PASS </action>', '<action> BET </action>', '<remark> attempt 1 lost </remark>'];

describe('trainingOptionsOf', () => {
  it('maps rollout, PPO and evaluation numbers onto core training options', () => {
    const config = resolveTrainConfig({}, { preset: 'paper', method: 'mage', env: 'kuhn-poker' });
    const options = trainingOptionsOf(config, {
      learner: createTabularLearner({ candidates: CANDIDATES, seed: 1 }),
    });
    expect(options).toMatchObject({
      iterations: 150,
      rollout: {
        groups: 16,
        groupSize: 8,
        attempts: 3,
        context: 'turn',
        style: 'verbose',
        sampling: { temperature: 1, topP: 1 },
      },
      update: { epochs: 1, miniBatchRows: 64, entropyCoef: 0.001 },
      checkpoints: { every: 10 },
    });
    expect(options.env.id).toBe('kuhn-poker');
    expect(options.env.options).toMatchObject({ revealShowdown: true });
    expect(options.population?.name).toBe('kuhn-poker-balanced');
    expect(options.memory.id).toBe('reflection');
    const evaluation = trainingEvaluationOf(config);
    expect(evaluation).toMatchObject({
      every: 10,
      episodes: 128,
      sampling: { temperature: 0.7, topP: 0.8, topK: 20 },
    });
    expect(evaluation.outOfDomain?.opponents).toEqual(['cfr']);
    expect(evaluation.outOfDomain?.env?.options).toMatchObject({ revealShowdown: false });
    const sokoban = trainingEvaluationOf(resolveTrainConfig({}, { env: 'sokoban' }));
    expect(sokoban.outOfDomain?.env?.options).toMatchObject({ boxes: 1 });
  });

  it('the advantage column equals computeAdvantages with the config options', () => {
    const config = resolveTrainConfig({}, { method: 'lamer' });
    const rows: RowRecord[] = [0, 1].flatMap((s) =>
      [0, 1].map((attempt) => ({
        group: 'g0',
        slot: `g0/s${s}`,
        opponentId: s === 0 ? 'random' : 'mcts-100',
        promptText: '',
        responseText: '',
        promptTokens: [],
        responseTokens: [1],
        logprobs: [0],
        attempt,
        turn: 0,
        phase: 'play' as const,
        anchor: `a|${s === 0 ? 'random' : 'mcts-100'}`,
        reward: s === attempt ? 10 : -10,
        valid: true,
      })),
    );
    const expected = computeAdvantages(
      rowsToAdvantageInputs(rows, rowGroupingOf(config)),
      advantageOptionsOf(config),
    );
    expect(Array.from(makeAdvantageColumnFn(config)(rows))).toEqual(expected.map((r) => r.advantage));
  });

  it('a smoke config trains end to end with core runTraining (tabular learner, KL reference)', async () => {
    for (const method of ['mage', 'grpo'] as const) {
      const config = resolveTrainConfig(
        { eval: { inDomain: ['aggressive'] } },
        { preset: 'smoke', method, env: 'kuhn-poker' },
      );
      const learner = createTabularLearner({ candidates: CANDIDATES, seed: 1 });
      const reference = createTabularLearner({ candidates: CANDIDATES, seed: 1 });
      const events: TrainingEvent[] = [];
      const result = await runTraining({
        ...trainingOptionsOf(config, { learner, reference }),
        onEvent: (e) => events.push(e),
      });
      expect(result.iterations).toBe(2);
      const updates = events.filter((e) => e.type === 'update-end');
      expect(updates).toHaveLength(2);
      expect(updates.every((u) => u.type === 'update-end' && u.steps > 0)).toBe(true);
      expect(learner.step).toBeGreaterThan(0);
      const evals = events.filter((e) => e.type === 'eval-end');
      expect(evals.length).toBeGreaterThan(0);
      const last = evals.at(-1);
      expect(last?.type === 'eval-end' && Object.keys(last.outOfDomain?.byOpponent ?? {})).toEqual(['cfr']);
    }
  });
});
