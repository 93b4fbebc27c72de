import { describe, expect, it } from 'vitest';
import type { EvalStatsV1 } from './events';
import { runTraining } from './iterate-training';
import { nimLearner, nimTrainingOptions } from './nim-training.test-helper';

describe('training the tabular learner on Nim', () => {
  it('raises the win rate against a random opponent', async () => {
    const learner = nimLearner(3, 0.2);
    const evals: EvalStatsV1[] = [];
    await runTraining({
      ...nimTrainingOptions(learner, {
        iterations: 20,
        rollout: { groups: 8, groupSize: 4, attempts: 1 },
        evaluation: { every: 10, atStart: true, episodes: 64, inDomain: { opponents: ['random'] } },
      }),
      onEvent: (e) => {
        if (e.type === 'eval-end') evals.push(e);
      },
    });
    const win = (e: EvalStatsV1 | undefined) =>
      e?.inDomain?.overall.perAttempt[0]?.passAtK.rate ?? Number.NaN;
    expect(win(evals[0])).toBeLessThan(0.6);
    expect(win(evals[evals.length - 1])).toBeGreaterThan(0.8);
    expect(win(evals[evals.length - 1])).toBeGreaterThan(win(evals[0]) + 0.3);
    // It learned the winning rule, leave a multiple of 3: certain near the end, most likely early on.
    expect(learner.probabilities('pile 4')[0]).toBeGreaterThan(0.9);
    expect(learner.probabilities('pile 5')[1]).toBeGreaterThan(0.9);
    expect(learner.probabilities('pile 7')[0]).toBeGreaterThan(0.5);
    expect(learner.probabilities('pile 8')[1]).toBeGreaterThan(0.5);
  });
});
