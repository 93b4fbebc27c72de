import { describe, expect, it } from 'vitest';
import type { EvalStatsV1, TrainingEvent } from './events';
import { runTraining } from './iterate-training';
import { nimLearner, nimTrainingOptions } from './nim-training.test-helper';

describe('training the tabular learner on Nim', () => {
  it('raises the win rate against a random opponent', async () => {
    const learner = nimLearner(3, 0.2);
    const evals: EvalStatsV1[] = [];
    const events: TrainingEvent[] = [];
    await runTraining({
      ...nimTrainingOptions(learner, {
        iterations: 20,
        groups: 8,
        groupSize: 4,
        attempts: 1,
        evaluation: { every: 10, atStart: true, episodes: 64, inDomain: { opponents: ['random'] } },
      }),
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'eval-end') evals.push(e);
      },
    });
    const win = (e: EvalStatsV1 | undefined) =>
      e?.inDomain?.overall.perAttempt[0]?.passAtK.rate ?? Number.NaN;
    console.log(evals.map((e) => [e.iteration, win(e), e.inDomain?.overall.invalidActionRate.rate]));
    expect(win(evals[0])).toBeLessThan(0.6);
    expect(win(evals[evals.length - 1])).toBeGreaterThan(win(evals[0]) + 0.2);
  });
});
