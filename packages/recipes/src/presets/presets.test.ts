import { ConfigError, MageError, type RowRecord, UnknownIdError } from '@mage-rl/core';
import { computeAdvantages, DEFAULT_ADVANTAGE_OPTIONS, rowsToAdvantageInputs } from '@mage-rl/gigpo';
import { describe, expect, it } from 'vitest';
import { METHOD_IDS, METHODS } from './methods';
import { resolveTrainConfig } from './resolve-config';
import { RUN_PRESET_IDS, RUN_PRESETS } from './run-presets';
import {
  advantageOptionsOf,
  makeAdvantageFn,
  makeLossFn,
  memoryOf,
  populationOf,
  rowGroupingOf,
} from './wiring';

function thrown(fn: () => unknown): MageError {
  try {
    fn();
  } catch (error) {
    if (MageError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a throw');
}

const TINKER = {
  backend: 'tinker',
  tinker: { baseURL: 'https://tinker.example', baseModel: 'Qwen/Qwen3-8B' },
} as const;

describe("method presets (the paper's method table)", () => {
  it('matches the table', () => {
    const row = (id: (typeof METHOD_IDS)[number]) => {
      const m = METHODS[id];
      return [m.trains, m.memory, m.attempts, m.metaReward, m.estimator, m.grouping];
    };
    expect(row('react')).toEqual([false, 'none', 3, null, null, 'per-opponent']);
    expect(row('reflexion')).toEqual([false, 'reflection', 3, null, null, 'per-opponent']);
    expect(row('memento')[1]).toBe('memento');
    expect(row('a-mem')[1]).toBe('a-mem');
    expect(row('grpo')).toEqual([true, 'none', 1, 'single', 'grpo', 'mixed']);
    expect(row('gigpo')).toEqual([true, 'none', 1, 'single', 'gigpo', 'mixed']);
    expect(row('lamer')).toEqual([true, 'reflection', 3, 'cumulative', 'gigpo', 'mixed']);
    expect(row('mage')).toEqual([true, 'reflection', 3, 'differential', 'gigpo', 'per-opponent']);
  });

  it('every preset × method × env resolves', () => {
    for (const preset of RUN_PRESET_IDS) {
      for (const method of METHOD_IDS) {
        for (const env of ['tictactoe', 'kuhn-poker', 'sokoban']) {
          const c = resolveTrainConfig({}, { preset, method, env });
          expect([c.preset, c.method, c.env.id]).toEqual([preset, method, env]);
          expect(c.trains).toBe(METHODS[method].trains);
        }
      }
    }
  });

  it('refuses a trains value that disagrees with the method (it is the method’s, not a setting)', () => {
    expect(resolveTrainConfig({ trains: true }, { method: 'mage' }).trains).toBe(true);
    expect(() => resolveTrainConfig({ trains: false }, { method: 'mage' })).toThrow(
      /trains follows the method \('mage' trains\); choose a method/,
    );
    expect(() => resolveTrainConfig({ trains: true }, { method: 'react' })).toThrow(ConfigError);
  });
});

describe('resolveTrainConfig', () => {
  it("paper preset: the paper's training numbers", () => {
    const c = resolveTrainConfig({}, { preset: 'paper', method: 'mage', env: 'tictactoe' });
    expect(c.rollout).toMatchObject({ groups: 16, groupSize: 8, attempts: 3, temperature: 1 });
    expect(c.ppo).toMatchObject({ lr: 1e-6, clip: 0.2, miniBatchRows: 64, epochs: 1, entropyCoef: 0.001 });
    expect(c.train.iterations).toBe(150);
    expect(c.eval).toMatchObject({ episodes: 128, temperature: 0.7, topP: 0.8, topK: 20 });
  });

  it('K = 1 methods get G·3 slots per group for equal sample count', () => {
    expect(resolveTrainConfig({}, { preset: 'paper', method: 'grpo' }).rollout).toMatchObject({
      groupSize: 24,
      attempts: 1,
      memory: 'none',
    });
  });

  it('per-env defaults', () => {
    const ttt = resolveTrainConfig({}, { env: 'tictactoe' });
    const kuhn = resolveTrainConfig({}, { env: 'kuhn-poker' });
    const sok = resolveTrainConfig({}, { env: 'sokoban' });
    expect([ttt.advantage.trajGamma, kuhn.advantage.trajGamma, sok.advantage.trajGamma]).toEqual([
      0.6, 0.6, 0.9,
    ]);
    expect([ttt.advantage.invalidPenalty, kuhn.advantage.invalidPenalty]).toEqual([5, 2]);
    expect([ttt.ppo.klCoef, kuhn.ppo.klCoef, sok.ppo.klCoef]).toEqual([0.1, 0.1, 0]);
    expect([ttt.advantage.lengthPenaltyCoef, sok.advantage.lengthPenaltyCoef]).toEqual([2, 1]);
    expect(ttt.eval.outOfDomain).toEqual(['mcts-1000']);
    expect(ttt.eval.inDomain).toContain('mcts-100');
    expect(ttt.eval.inDomain).toContain('pattern-centre-first');
    expect(kuhn.eval.outOfDomain).toEqual(['cfr']);
    expect(kuhn.eval.envOptions).toEqual({ revealShowdown: false });
    expect(sok.eval.outOfDomainEnvOptions).toEqual([{ boxes: 1 }, { boxes: 3 }]);
    // The hidden-target tasks train with the settings that taught reading, under every preset's scale.
    for (const env of ['doors', 'treasure']) {
      for (const preset of RUN_PRESET_IDS) {
        const c = resolveTrainConfig({}, { env, preset });
        expect(c.advantage).toMatchObject({
          episodeScore: 'return',
          episodeBaseline: 'attempt',
          reflectWeight: 0,
        });
        expect(c.ppo.klCoef).toBe(0.1);
        expect(c.train.iterations).toBe(RUN_PRESETS[preset].train.iterations);
        // Treasure's warm start opens with the reader's probe; Doors' teacher has none to play.
        expect(c.warmStart.readerOpening).toBe(env === 'treasure' ? 1 : undefined);
      }
    }
  });

  it('user values win over method, env and preset; ids may come from the partial', () => {
    const c = resolveTrainConfig({
      method: 'lamer',
      preset: 'smoke',
      env: { id: 'kuhn-poker', options: { mode: 'new-deal' } },
      rollout: { attempts: 4, groupSize: 5 },
      advantage: { metaReward: 'differential', anchorScope: 'local' },
      ppo: { klCoef: 0 },
    });
    expect(c.method).toBe('lamer');
    expect(c.rollout.attempts).toBe(4);
    expect(c.rollout.groupSize).toBe(5);
    expect(c.advantage.metaReward).toBe('differential');
    expect(c.advantage.anchorScope).toBe('local');
    expect(c.ppo.klCoef).toBe(0);
    expect(c.env.options).toEqual({ revealShowdown: true, truncation: 'loss', mode: 'new-deal' });
    expect(c.train.iterations).toBe(RUN_PRESETS.smoke.train.iterations);
  });

  it("learner.backend 'tinker' takes its service from learner.tinker, defaults in one place", () => {
    const local = resolveTrainConfig({});
    expect(local.learner).toEqual({
      backend: 'local',
      tinker: { baseURL: null, baseModel: null, loraRank: 32, apiKeyEnv: 'TINKER_API_KEY', loss: 'exact' },
    });
    const c = resolveTrainConfig({ learner: TINKER, ppo: { klCoef: 0.05 } });
    expect(c.learner.tinker).toMatchObject({ baseURL: 'https://tinker.example', baseModel: 'Qwen/Qwen3-8B' });
    expect(c.learner.tinker.loss).toBe('exact');
  });

  it('bad values name the dotted path, the value and what is allowed', () => {
    const cases: [unknown, string, RegExp][] = [
      [{ rollout: { groups: 0 } }, 'rollout.groups', /at least 1, got 0/],
      [
        { advantage: { metaReward: 'improvement' } },
        'advantage.metaReward',
        /"differential".*got "improvement"/,
      ],
      [{ ppo: { clip: 1.5 } }, 'ppo.clip', /less than 1, got 1.5/],
      [{ rollout: { seats: 'third' } }, 'rollout.seats', /"first", "second" or an object, got "third"/],
      [{ rollout: { maxTokens: { play: 'x' } } }, 'rollout.maxTokens.play', /number, got "x"/],
      [
        { ppo: { learningRate: 1 } },
        'ppo.learningRate',
        /Unknown key\(s\) 'learningRate' in ppo; known keys: lr, clip/,
      ],
      [{ env: { options: { size: 9 } } }, 'env.options.size', /size/],
      [{ population: { preset: 'fixed' } }, 'population.fixedOpponent', /fixedOpponent/],
      [
        { rollout: { backend: 'openai' } },
        'rollout.openai.baseURL',
        /must be set when rollout.backend is 'openai'/,
      ],
      [
        { rollout: { backend: 'openai', openai: { baseURL: 'http://h:1/v1' } } },
        'rollout.openai.model',
        /must be set/,
      ],
      [{ rollout: { openai: { baseURL: 'ftp://h' } } }, 'rollout.openai.baseURL', /http\(s\) URL/],
      [
        { learner: { backend: 'tinker' } },
        'learner.tinker.baseURL',
        /must be set when learner.backend is 'tinker'/,
      ],
      [
        { learner: { backend: 'tinker', tinker: { baseURL: 'https://t' } } },
        'learner.tinker.baseModel',
        /must be set/,
      ],
      [{ learner: { tinker: { loraRank: 0 } } }, 'learner.tinker.loraRank', /at least 1, got 0/],
      [{ learner: { backend: 'remote' } }, 'learner.backend', /one of "local", "tinker", got "remote"/],
      [
        { learner: { ...TINKER, tinker: { ...TINKER.tinker, loss: 'ppo' } }, ppo: { klCoef: 0.01 } },
        'learner.tinker.loss',
        /no KL term to the reference; set ppo.klCoef=0 or learner.tinker.loss=exact/,
      ],
      [
        {
          learner: { ...TINKER, tinker: { ...TINKER.tinker, loss: 'importance_sampling' } },
          ppo: { klCoef: 0, aggregation: 'seq-mean-token-mean' },
        },
        'learner.tinker.loss',
        /ppo.aggregation 'seq-mean-token-mean' needs learner.tinker.loss=exact/,
      ],
      [
        { learner: TINKER, rollout: { backend: 'openai', openai: { baseURL: 'http://h/v1', model: 'm' } } },
        'rollout.backend',
        /samples its rollouts on the Tinker service; rollout.backend must be 'local'/,
      ],
    ];
    for (const [partial, path, message] of cases) {
      const error = thrown(() => resolveTrainConfig(partial as never));
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.context.path).toBe(path);
      expect(error.message).toMatch(message);
    }
  });

  it('unknown ids list the known ones', () => {
    const cases: [() => unknown, string][] = [
      [() => resolveTrainConfig({}, { method: 'ppo' }), 'method'],
      [() => resolveTrainConfig({}, { preset: 'huge' }), 'preset'],
      [() => resolveTrainConfig({}, { env: 'chess' }), 'env'],
      [() => resolveTrainConfig({ population: { preset: 'league' } }), 'population'],
      [() => resolveTrainConfig({ eval: { outOfDomain: ['alphazero'] } }), 'opponent'],
      [() => resolveTrainConfig({ population: { preset: 'fixed', fixedOpponent: 'nobody' } }), 'opponent'],
    ];
    for (const [fn, kind] of cases) {
      const error = thrown(fn);
      expect(error).toBeInstanceOf(UnknownIdError);
      expect((error as UnknownIdError).kind).toBe(kind);
      expect((error as UnknownIdError).known.length).toBeGreaterThan(0);
    }
    expect(thrown(() => resolveTrainConfig({}, { method: 'ppo' })).message).toMatch(/mage/);
  });

  it('sokoban takes no evaluation opponents', () => {
    const error = thrown(() => resolveTrainConfig({ eval: { inDomain: ['random'] } }, { env: 'sokoban' }));
    expect(error.context.path).toBe('eval.inDomain');
  });
});

function row(partial: Partial<RowRecord> & Pick<RowRecord, 'slot' | 'group' | 'attempt'>): RowRecord {
  return {
    opponentId: 'mcts-100',
    promptText: '',
    responseText: '',
    promptTokens: [],
    responseTokens: [1, 2, 3],
    logprobs: [0, 0, 0],
    turn: 0,
    phase: 'play',
    anchor: 's|mcts-100',
    reward: 0,
    valid: true,
    ...partial,
  };
}

describe('config → gigpo', () => {
  const rows: RowRecord[] = [
    row({ group: 'g0', slot: 'g0/s0', attempt: 0, reward: -10 }),
    row({ group: 'g0', slot: 'g0/s0', attempt: 1, reward: 10 }),
    row({ group: 'g0', slot: 'g0/s1', attempt: 0, reward: 10 }),
    row({ group: 'g0', slot: 'g0/s1', attempt: 1, reward: 10, valid: false, anchor: 't|mcts-100' }),
  ];

  it('maps the config onto computeAdvantages options', () => {
    const c = resolveTrainConfig({}, { method: 'mage', env: 'kuhn-poker' });
    // mage on Kuhn Poker: gigpo's defaults with Kuhn Poker's invalid penalty and a length penalty.
    expect(advantageOptionsOf(c)).toEqual({
      ...DEFAULT_ADVANTAGE_OPTIONS,
      invalidPenalty: 2,
      lengthPenalty: { coef: 2, maxTokens: c.rollout.maxTokens.reflect },
    });
    expect(rowGroupingOf(c)).toEqual({ grouping: 'per-opponent' });
    const grpo = resolveTrainConfig({}, { method: 'grpo' });
    expect(advantageOptionsOf(grpo)).toMatchObject({ estimator: 'grpo', metaReward: 'single' });
    expect(advantageOptionsOf(grpo).lengthPenalty?.maxTokens).toBe(grpo.rollout.maxTokens.play);
    expect(rowGroupingOf(grpo)).toEqual({ grouping: 'mixed' });
  });

  it('makeAdvantageFn equals rowsToAdvantageInputs + computeAdvantages with those options', () => {
    for (const method of ['mage', 'lamer', 'grpo'] as const) {
      const c = resolveTrainConfig({}, { method });
      const expected = computeAdvantages(
        rowsToAdvantageInputs(rows, rowGroupingOf(c)),
        advantageOptionsOf(c),
      );
      expect(makeAdvantageFn(c)(rows)).toEqual(expected);
    }
    const mage = makeAdvantageFn(resolveTrainConfig({}, { method: 'mage' }))(rows);
    const lamer = makeAdvantageFn(resolveTrainConfig({}, { method: 'lamer' }))(rows);
    expect(mage.map((r) => r.advantage)).not.toEqual(lamer.map((r) => r.advantage));
  });

  it('makeLossFn uses the clip, the KL coefficient and its upper edge', () => {
    const loss = makeLossFn(resolveTrainConfig({}, { env: 'tictactoe' }));
    const input = {
      logprobs: Float32Array.of(-1, -1),
      oldLogprobs: Float32Array.of(-1, -1),
      refLogprobs: Float32Array.of(-1.5, -0.5),
      advantages: Float32Array.of(1, -1),
      rowOfToken: Int32Array.of(0, 1),
    };
    const withKl = loss(input);
    const noKl = makeLossFn(resolveTrainConfig({ ppo: { klCoef: 0 } }))(input);
    expect(withKl.stats.klLoss).toBeGreaterThan(0);
    expect(noKl.stats.klLoss ?? 0).toBe(0);
    // A move made far less likely than the reference (d = 8 beyond d_hi): held by default, released on request.
    const far = { ...input, logprobs: Float32Array.of(-10, -10), oldLogprobs: Float32Array.of(-10, -10) };
    far.refLogprobs = Float32Array.of(-2, -2);
    const released = makeLossFn(
      resolveTrainConfig({ ppo: { klUpperEdge: 'release-advantaged' } }, { env: 'tictactoe' }),
    )(far);
    expect(resolveTrainConfig({}).ppo.klUpperEdge).toBe('hold');
    expect(Array.from(released.weights)).toEqual([0.5, -0.5]);
    expect(loss(far).weights[0]).toBeGreaterThan(0.5);
  });

  it('population and memory follow the config', () => {
    const mage = resolveTrainConfig({}, { method: 'mage', env: 'kuhn-poker' });
    expect(populationOf(mage)).toMatchObject({ name: 'kuhn-poker-balanced', grouping: 'per-opponent' });
    expect(populationOf(resolveTrainConfig({}, { method: 'lamer' }))?.grouping).toBe('mixed');
    const fixed = resolveTrainConfig({ population: { preset: 'fixed', fixedOpponent: 'mcts-100' } });
    expect(populationOf(fixed)?.entries).toEqual([{ id: 'mcts-100', weight: 1 }]);
    expect(populationOf(resolveTrainConfig({}, { env: 'sokoban' }))).toBeUndefined();
    expect(memoryOf(mage).id).toBe('reflection');
    expect(memoryOf(resolveTrainConfig({}, { method: 'memento' })).id).toBe('memento');
    expect(memoryOf(resolveTrainConfig({}, { method: 'react' })).reflects).toBe(false);
  });
});
