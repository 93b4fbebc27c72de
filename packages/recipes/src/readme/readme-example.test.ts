/** The README example, kept compiling and running (smoke preset numbers so it takes milliseconds). */

import { createTicTacToe } from '@mage-rl/envs/tictactoe';
import { describe, expect, it } from 'vitest';
import {
  buildWarmStartCorpus,
  compactVocabulary,
  corpusTexts,
  createTeacher,
  evaluateMethod,
  makeAdvantageFn,
  makeLossFn,
  opponentFactory,
  populationOf,
  resolveTrainConfig,
} from '..';

describe('README example', () => {
  it('runs', async () => {
    const config = resolveTrainConfig(
      { rollout: { groups: 4 } },
      { preset: 'laptop', method: 'mage', env: 'tictactoe' },
    );
    const env = createTicTacToe(config.env.options);
    const corpus = await buildWarmStartCorpus({
      env,
      population: populationOf(config),
      makeOpponent: opponentFactory(env.id),
      groups: 4,
      groupSize: 2,
      seed: 1,
    });
    const words = compactVocabulary(corpusTexts(corpus.examples));
    const advantages = makeAdvantageFn(config);
    const loss = makeLossFn(config);
    const baseline = await evaluateMethod({
      env,
      policy: createTeacher(env),
      method: 'reflexion',
      opponents: config.eval.outOfDomain,
      episodes: 2,
      style: 'compact',
    });
    expect(words).toContain('<action>');
    expect(advantages(corpus.batches[0]?.rows ?? [])).toHaveLength(corpus.batches[0]?.rows.length ?? -1);
    expect(typeof loss).toBe('function');
    expect(baseline.metrics.byOpponent['mcts-1000']?.metaEpisodes).toBe(2);
  });
});
