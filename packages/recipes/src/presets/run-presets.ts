/**
 * Run-scale presets: `paper` (the paper's scale), `laptop` (mage-tiny on a 2-core CPU, sized
 * for the README main job; the numbers it reaches are in the root README), `reading` (laptop's model and
 * rollouts at the budget under which RL taught mage-tiny to read its notes: the README's results rows) and
 * `smoke` (tiny: a whole train + eval runs in seconds, for tests and CI). An env may name the preset its
 * runs use by default and its own scale under it (`EnvDefinitionV1.recipe`, architecture/recipes.md).
 */

import type { TrainConfig } from './schema';

export const RUN_PRESET_IDS = ['paper', 'laptop', 'reading', 'smoke'] as const;
export type RunPresetId = (typeof RUN_PRESET_IDS)[number];

/** What a run preset sets: scale, sampling and optimisation numbers (env- and method-independent). */
export type RunPresetValues = Pick<TrainConfig, 'train' | 'warmStart'> & {
  /** The KL coefficient is the env's (and the method's) to set. */
  readonly ppo: Omit<TrainConfig['ppo'], 'klCoef'>;
  readonly rollout: Omit<TrainConfig['rollout'], 'memory' | 'seats' | 'backend' | 'openai'>;
  readonly eval: Pick<
    TrainConfig['eval'],
    'episodes' | 'attempts' | 'temperature' | 'topP' | 'topK' | 'earlyStop'
  >;
  /** True when the numbers are first guesses not yet backed by measured runs. */
  readonly provisional: boolean;
};

/** Rollouts sample the full distribution for K = 3 attempts and stop a slot early once it is solved. */
function rolloutSampling(context: 'turn' | 'transcript', style: 'verbose' | 'compact') {
  return { attempts: 3, context, style, earlyStop: true, temperature: 1, topP: 1, topK: 0 } as const;
}

/** The PPO numbers of every preset (the learning rate and mini-batch size vary with scale). */
const PPO = {
  clip: 0.2,
  dualClip: 3,
  klUpperEdge: 'hold',
  entropyCoef: 0.001,
  epochs: 1,
  gradClip: 1,
  weightDecay: 0.01,
  aggregation: 'token-mean',
} as const;

/** The evaluation protocol of every preset (the number of episodes varies with scale). */
const EVAL_SAMPLING = { attempts: 3, temperature: 0.7, topP: 0.8, topK: 20, earlyStop: true } as const;

/** mage-tiny (~0.75 M parameters, compact transcripts) on 2 CPU cores: the README main job in ~14 min. */
const LAPTOP: RunPresetValues = {
  provisional: false,
  rollout: {
    groups: 8,
    groupSize: 4,
    ...rolloutSampling('transcript', 'compact'),
    maxTokens: { play: 16, reflect: 128 },
  },
  ppo: { lr: 1e-4, miniBatchRows: 64, ...PPO },
  train: { iterations: 16, evalEvery: 0, checkpointEvery: 4, evaluate: true },
  eval: { episodes: 16, ...EVAL_SAMPLING },
  warmStart: {
    groups: 32,
    groupSize: 2,
    iterations: 8,
    epochs: 4,
    lr: 2e-3,
    batchRows: 32,
    batchTokens: 2048,
    noise: 0.1,
    mistakes: 0.1,
    adaptive: 0,
    earlyStop: true,
  },
};

export const RUN_PRESETS: Readonly<Record<RunPresetId, RunPresetValues>> = {
  /** The paper's: 16 groups × 8 slots, K = 3, 150 iterations, lr 1e-6, clip 0.2, mini-batch 64, 1 epoch. */
  paper: {
    provisional: false,
    rollout: {
      groups: 16,
      groupSize: 8,
      ...rolloutSampling('turn', 'verbose'),
      // Ours: the spec gives no response limits at paper scale.
      maxTokens: { play: 512, reflect: 1024 },
    },
    ppo: { lr: 1e-6, miniBatchRows: 64, ...PPO },
    train: { iterations: 150, evalEvery: 10, checkpointEvery: 10, evaluate: true },
    eval: { episodes: 128, ...EVAL_SAMPLING },
    warmStart: {
      groups: 0,
      groupSize: 0,
      iterations: 0,
      epochs: 0,
      lr: 0,
      batchRows: 0,
      batchTokens: 0,
      noise: 0.1,
      mistakes: 0,
      adaptive: 0,
      earlyStop: true,
    },
  },
  laptop: LAPTOP,
  /**
   * laptop's model, rollouts and warm-start recipe at the budget of docs/results/adaptation-from-scratch:
   * 300 iterations (a checkpoint every 50), mini-batches of 8 rows (12–35 optimizer steps per iteration in
   * those runs, instead of 2–3) and four times the warm-start corpus (32 iterations), which made the note-blind
   * teachers' notes faithful on Treasure and Doors. On a shared 2-core machine a run trained in 8–17 min
   * (Higher-Lower, Doors) to 77–117 min (Treasure, at 16 groups).
   */
  reading: {
    ...LAPTOP,
    ppo: { ...LAPTOP.ppo, miniBatchRows: 8 },
    train: { ...LAPTOP.train, iterations: 300, checkpointEvery: 50 },
    warmStart: { ...LAPTOP.warmStart, iterations: 32 },
  },
  /** Tiny: seconds per run. */
  smoke: {
    provisional: false,
    rollout: {
      groups: 2,
      groupSize: 2,
      ...rolloutSampling('transcript', 'compact'),
      maxTokens: { play: 8, reflect: 16 },
    },
    ppo: { lr: 1e-4, miniBatchRows: 16, ...PPO },
    train: { iterations: 2, evalEvery: 2, checkpointEvery: 1, evaluate: true },
    eval: { episodes: 1, ...EVAL_SAMPLING },
    warmStart: {
      groups: 4,
      groupSize: 1,
      iterations: 1,
      epochs: 1,
      lr: 1e-3,
      batchRows: 8,
      batchTokens: 0,
      noise: 0.1,
      mistakes: 0.1,
      adaptive: 0,
      earlyStop: true,
    },
  },
};
