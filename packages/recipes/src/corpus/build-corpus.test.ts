import { createPopulation, type EnvV1, type MemoryV1 } from '@mage-rl/core';
import { createKuhnPoker } from '@mage-rl/envs/kuhn-poker';
import { createRps } from '@mage-rl/envs/rps';
import { createSokoban } from '@mage-rl/envs/sokoban';
import { createTicTacToe } from '@mage-rl/envs/tictactoe';
import { createOpponent, populationPreset } from '@mage-rl/opponents';
import { createAMemMemory, createMementoMemory, createMemory, MEMORY_MODES } from '@mage-rl/reflection';
import { describe, expect, it } from 'vitest';
import { rpsEnvDefinition } from '../environments/rps';
import { collectVocabulary, compactBaseVocabulary } from '../vocabulary';
import { buildWarmStartCorpus, corpusTexts } from './build-corpus';

const makeOpponent = (envId: string) => (id: string) => createOpponent(envId, id) as never;

describe('buildWarmStartCorpus', () => {
  it('returns one example per row with the exact chat messages and the teacher response', async () => {
    const env = createTicTacToe();
    const corpus = await buildWarmStartCorpus({
      env,
      population: populationPreset('tictactoe', 'balanced'),
      makeOpponent: makeOpponent('tictactoe'),
      groups: 4,
      groupSize: 2,
      seed: 5,
    });
    const rows = corpus.batches.flatMap((b) => b.rows);
    expect(corpus.examples).toHaveLength(rows.length);
    expect(corpus.examples.every((e) => e.valid)).toBe(true);
    corpus.examples.forEach((e, i) => {
      const row = rows.find((r) => r.slot === e.slot && r.attempt === e.attempt && r.turn === e.turn);
      expect(row?.responseText).toBe(e.response);
      expect(e.messages.at(-1)?.role).toBe('user');
      // transcript layout: every earlier assistant message is a teacher response of the same slot
      for (const m of e.messages.filter((msg) => msg.role === 'assistant')) {
        expect(m.content).toMatch(/^<(action|remark)> .* <\/(action|remark)>$/);
      }
      expect(i).toBeGreaterThanOrEqual(0);
    });
    expect(corpus.examples.some((e) => e.phase === 'reflect')).toBe(true);
    expect(corpus.metrics.overall.metaEpisodes).toBe(8);
  });

  it('is reproducible from its seed and differs across seeds', async () => {
    const options = {
      env: createKuhnPoker(),
      opponents: ['conservative', 'aggressive'],
      makeOpponent: makeOpponent('kuhn-poker'),
      groups: 2,
      groupSize: 3,
      iterations: 2,
    };
    const a = await buildWarmStartCorpus({ ...options, seed: 1 });
    const b = await buildWarmStartCorpus({ ...options, seed: 1 });
    const c = await buildWarmStartCorpus({ ...options, seed: 2 });
    expect(a.examples).toEqual(b.examples);
    expect(a.examples.map((e) => e.messages)).not.toEqual(c.examples.map((e) => e.messages));
    expect(new Set(a.examples.map((e) => e.iteration))).toEqual(new Set([0, 1]));
  });
});

/** Compact texts of teacher corpora over envs × memories × layouts × seats × opponents. */
async function sweep(seed: number): Promise<string[]> {
  const texts: string[] = [];
  const memories = (): MemoryV1[] => [
    ...MEMORY_MODES.map((mode) => createMemory({ mode })),
    createMementoMemory(),
    createAMemMemory(),
  ];
  const envs: { env: EnvV1; opponents: string[] | null }[] = [
    {
      env: createTicTacToe() as unknown as EnvV1,
      opponents: ['mcts-100', 'random', 'pattern-centre-first', 'pattern-bottom-right-sweep', 'mcts-1000'],
    },
    {
      env: createKuhnPoker() as unknown as EnvV1,
      opponents: ['conservative', 'aggressive', 'intermediate', 'cfr'],
    },
    {
      env: createKuhnPoker({ mode: 'new-deal' }) as unknown as EnvV1,
      opponents: ['cfr-sampled', 'random'],
    },
    { env: createSokoban() as unknown as EnvV1, opponents: null },
    { env: createSokoban({ boxes: 1 }) as unknown as EnvV1, opponents: null },
    {
      env: createRps() as unknown as EnvV1,
      opponents: ['constant-rock', 'beat-last-paper', 'win-stay-scissors', 'random'],
    },
  ];
  for (const { env, opponents } of envs) {
    for (const memory of memories()) {
      for (const context of ['turn', 'transcript'] as const) {
        // two runs so retrieval memories show committed cases and notes
        for (let iteration = 0; iteration < 2; iteration++) {
          const corpus = await buildWarmStartCorpus({
            env,
            ...(opponents
              ? {
                  population: createPopulation(
                    'sweep',
                    opponents.map((id) => ({ id, weight: 1 })),
                  ),
                  makeOpponent: makeOpponent(env.id),
                }
              : {}),
            groups: opponents ? 3 : 2,
            groupSize: 1,
            memory,
            context,
            earlyStop: iteration === 0,
            seats: { mixed: 0.5 },
            seed: `${seed}/${iteration}`,
          });
          texts.push(...corpusTexts(corpus.examples));
        }
      }
    }
  }
  return texts;
}

describe('compact vocabulary', () => {
  it('collectVocabulary splits on whitespace and keeps grammar punctuation', () => {
    expect(collectVocabulary(['<action> ( 1 , 2 ) </action>', 'b a\na  <remark>'])).toEqual([
      '(',
      ')',
      ',',
      '1',
      '2',
      '</action>',
      '<action>',
      '<remark>',
      'a',
      'b',
    ]);
  });

  it('the base vocabulary of their envs covers every word of teacher corpora, whatever the seed', async () => {
    // Rock-Paper-Scissors' words join the warm starts it is part of only.
    const base = new Set(compactBaseVocabulary([rpsEnvDefinition]));
    for (const seed of [1, 2, 3]) {
      const words = collectVocabulary(await sweep(seed));
      expect(words.filter((w) => !base.has(w))).toEqual([]);
      expect(words.length).toBeGreaterThan(60);
    }
  }, 60_000);

  it('holds the rules words, outcome labels and numbers 0-99, and stays small', () => {
    const base = compactBaseVocabulary();
    for (const w of ['win', 'loss', 'deadlock', 'truncated', '0', '42', '99', '√', '<remark>', '->']) {
      expect(base).toContain(w);
    }
    expect(base.length).toBeLessThan(300);
    expect([...base].sort()).toEqual(base.slice().sort());
  });
});
