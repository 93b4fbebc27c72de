/** The zod schema of a whole train/eval configuration (every value present after resolution). */

import { EPISODE_BASELINES, EPISODE_SCORES, KL_UPPER_EDGES, PENALTY_SCOPES } from '@mage-rl/gigpo';
import { NOTE_MODES } from '@mage-rl/reflection';
import { z } from 'zod';
import { MEMORY_KINDS } from '../wiring';
import { formatByteSize, parseByteSize } from './byte-size';
import { METHOD_IDS } from './methods';
import { RUN_PRESET_IDS } from './run-presets';

const posInt = z.number().int().min(1);
const nonNegInt = z.number().int().min(0);

/**
 * Upper bounds of every size that allocates (slots, tokens, rows, episodes, iterations): far above the
 * paper's numbers, low enough that a typo (`rollout.groups=1e9`) is refused with a message instead of
 * exhausting memory after a long warm start.
 */
export const CONFIG_LIMITS = {
  groups: 1024,
  groupSize: 256,
  /** groups × groupSize: meta-episodes held in memory per iteration. */
  slots: 16_384,
  tokens: 8192,
  iterations: 100_000,
  epochs: 100,
  rows: 65_536,
  /** Positions of a warm-start step (`warmStart.batchTokens`). */
  batchTokens: 1_048_576,
  episodes: 100_000,
  warmStartIterations: 10_000,
  warmStartEpochs: 1000,
  /** `learner.tinker.loraRank`. */
  loraRank: 1024,
  /** `memory.budget` in bytes at least (less does not hold the runtime itself) and at most. */
  memoryBudgetMin: 2 ** 30,
  memoryBudget: 2 ** 40,
} as const;
const L = CONFIG_LIMITS;
const finite = z.number().finite();
const fraction = z.number().min(0).max(1);
const jsonRecord = z.record(z.string(), z.unknown());
const opponentIds = z.array(z.string().min(1));

/** A size (`parseByteSize`): a byte count or a string such as "6GiB", kept as written. */
const memoryBudget = z.union([z.number(), z.string()]).superRefine((value, ctx) => {
  const bytes = parseByteSize(value);
  if (bytes === undefined || bytes < L.memoryBudgetMin || bytes > L.memoryBudget) {
    const range = `from ${formatByteSize(L.memoryBudgetMin)} to ${formatByteSize(L.memoryBudget)}`;
    const read = bytes === undefined ? 'not a size' : formatByteSize(bytes);
    ctx.addIssue({
      code: 'custom',
      message: `must be a size ${range}: a byte count or a number with a unit (kB, MB, GB, TB, KiB, MiB, GiB, TiB) such as "6GiB" or "8GB"; read as ${read}`,
    });
  }
});

export const trainConfigSchema = z.strictObject({
  env: z.strictObject({
    /** An env of the registry: built in, or added from an env package (`resolveTrainConfig` checks it). */
    id: z.string().min(1),
    /** Options of the training env (validated by the env itself). */
    options: jsonRecord,
    /** The package the env comes from (`--env-package`); absent for built-in envs. */
    package: z.string().min(1).optional(),
  }),
  method: z.enum(METHOD_IDS),
  preset: z.enum(RUN_PRESET_IDS),
  seed: z.union([z.number().int().min(0), z.string().min(1)]),
  /** Whether the method updates the model: the method's (`METHODS[method].trains`), never set on its own. */
  trains: z.boolean(),
  rollout: z.strictObject({
    groups: posInt.max(L.groups),
    groupSize: posInt.max(L.groupSize),
    /** K. */
    attempts: posInt.max(20),
    context: z.enum(['turn', 'transcript']),
    style: z.enum(['verbose', 'compact']),
    memory: z.enum(MEMORY_KINDS),
    /**
     * Turn layout: how many recent steps of the current attempt the play prompt shows. Absent: the
     * memory's own default (7, as in the paper's games); ALFWorld sets 15 and WebShop 20.
     */
    historyWindow: posInt.max(200).optional(),
    earlyStop: z.boolean(),
    seats: z.union([z.enum(['first', 'second']), z.strictObject({ mixed: fraction })]),
    /**
     * Rollouts sample at this temperature; with the local backend the learner and its reference take
     * their log-probs at it too (architecture/learner.md), so the update sees the distribution sampled.
     */
    temperature: z.number().min(0).max(10),
    topP: z.number().gt(0).max(1),
    /** 0 = off. */
    topK: nonNegInt,
    maxTokens: z.strictObject({ play: posInt.max(L.tokens), reflect: posInt.max(L.tokens) }),
    /**
     * Where rollouts sample: `local` (the learner's own generator) or `openai` (an OpenAI-compatible
     * server such as `mage serve` or vLLM, from a LoRA adapter the trainer pushes after every update).
     */
    backend: z.enum(['local', 'openai']),
    /** The server of the `openai` backend (all null for `local`). */
    openai: z.strictObject({
      /** API base URL, e.g. `http://127.0.0.1:8000/v1`. */
      baseURL: z
        .string()
        .regex(/^https?:\/\//, 'an http(s) URL')
        .nullable(),
      /** The served base model's name (the adapter is loaded as `<model>-mage-lora`). */
      model: z.string().min(1).nullable(),
      /** Name of the environment variable that holds the API key (keys stay out of config files). */
      apiKeyEnv: z.string().min(1).nullable(),
    }),
  }),
  /**
   * Where the policy is trained: `local` (the embedded model in this process) or `tinker` (a LoRA of
   * `tinker.baseModel` on a Tinker-compatible service, which also samples the rollouts; see
   * architecture/tinker.md).
   */
  learner: z.strictObject({
    backend: z.enum(['local', 'tinker']),
    /** The service of the `tinker` backend (URL and model null for `local`). */
    tinker: z.strictObject({
      /** The service's base URL, without `/api/v1`. */
      baseURL: z
        .string()
        .regex(/^https?:\/\//, 'an http(s) URL')
        .nullable(),
      /** The base model as the service names it (e.g. `Qwen/Qwen3-8B`). */
      baseModel: z.string().min(1).nullable(),
      loraRank: posInt.max(L.loraRank),
      /** Name of the environment variable that holds the API key (keys stay out of config files). */
      apiKeyEnv: z.string().min(1),
      /**
       * `exact`: MAGE's PPO loss computed here and sent as per-token cross-entropy weights (two passes);
       * `ppo` / `importance_sampling`: the service's built-in loss (one pass; no KL to the reference).
       */
      loss: z.enum(['exact', 'ppo', 'importance_sampling']),
    }),
  }),
  population: z.strictObject({
    /** A preset of `@mage-rl/opponents` (`balanced`, `patterns`, `ood`) or `fixed`. */
    preset: z.string().min(1),
    fixedOpponent: z.string().min(1).nullable(),
    /** `sampled` per iteration (default) or a fixed `partition`. */
    mode: z.enum(['sampled', 'partition']),
  }),
  advantage: z.strictObject({
    estimator: z.enum(['gigpo', 'grpo']),
    metaReward: z.enum(['differential', 'cumulative', 'single']),
    normalization: z.enum(['mean', 'mean-std']),
    stepGamma: fraction,
    trajGamma: fraction,
    stepWeight: finite,
    anchorScope: z.enum(['global', 'local']),
    episodeBaseline: z.enum(EPISODE_BASELINES),
    /** `meta-reward` (r̃_k) or `return` (r̃_k plus the later attempts' discounted meta-rewards). */
    episodeScore: z.enum(EPISODE_SCORES),
    /** `per-opponent` or `mixed` (opponents mixed inside groups and anchors: the ablation). */
    grouping: z.enum(['per-opponent', 'mixed']),
    invalidPenalty: z.number().finite().min(0),
    /** `episode`: penalties lower a row's episode score; `episode-and-step`: also its step-group value. */
    penaltyScope: z.enum(PENALTY_SCOPES),
    /** Length-penalty coefficient (0 = off); the limit is the larger response limit in use. */
    lengthPenaltyCoef: z.number().finite().min(0),
    /** Multiplies reflect rows' advantages: how strongly the policy gradient trains the notes (0: KL only). */
    reflectWeight: z.number().finite().min(0),
  }),
  ppo: z.strictObject({
    lr: z.number().gt(0).max(1),
    clip: z.number().gt(0).lt(1),
    /** `null` turns the dual clip off. */
    dualClip: z.number().gt(1).nullable(),
    klCoef: z.number().finite().min(0),
    /**
     * Beyond the KL's upper edge: `hold` pulls every token back; `release-advantaged` only tokens with no
     * advantage (the notes at `reflectWeight` 0), letting go of moves their advantages pushed down.
     */
    klUpperEdge: z.enum(KL_UPPER_EDGES),
    entropyCoef: z.number().finite().min(0),
    /**
     * Weight of the refused-action rows: each retry after a rule-refused move (e.g. a taken cell) also
     * trains the refused move at the retry's prompt, with this × the refused turn's advantage. Absent: 0.
     */
    refusedRetry: z.number().finite().min(0).max(100).optional(),
    epochs: posInt.max(L.epochs),
    miniBatchRows: posInt.max(L.rows),
    gradClip: z.number().gt(0),
    weightDecay: z.number().finite().min(0),
    aggregation: z.enum(['token-mean', 'seq-mean-token-mean']),
  }),
  train: z.strictObject({
    iterations: nonNegInt.max(L.iterations),
    /** Evaluate every N iterations (0 = only at the end). */
    evalEvery: nonNegInt.max(L.iterations),
    checkpointEvery: posInt.max(L.iterations),
    /** Evaluate during and after training; false: checkpoints only (`mage experiment` evaluates apart). */
    evaluate: z.boolean(),
  }),
  eval: z.strictObject({
    /** Meta-episodes per opponent. */
    episodes: posInt.max(L.episodes),
    attempts: posInt.max(20),
    temperature: z.number().min(0).max(10),
    topP: z.number().gt(0).max(1),
    topK: nonNegInt,
    earlyStop: z.boolean(),
    inDomain: opponentIds,
    outOfDomain: opponentIds,
    /** Env options of evaluation (merged over `env.options`; Kuhn hides the showdown). */
    envOptions: jsonRecord,
    /** Extra out-of-domain env variants (Sokoban: 1-box and 3-box rooms), merged over `envOptions`. */
    outOfDomainEnvOptions: z.array(jsonRecord),
  }),
  /** The supervised warm start of the embedded model (`mage pretrain`). */
  warmStart: z.strictObject({
    groups: nonNegInt.max(L.groups),
    groupSize: nonNegInt.max(L.groupSize),
    iterations: nonNegInt.max(L.warmStartIterations),
    epochs: nonNegInt.max(L.warmStartEpochs),
    lr: z.number().min(0).max(1),
    /** Turns per optimizer step (when `batchTokens` is 0). */
    batchRows: nonNegInt.max(L.rows),
    /**
     * Positions per optimizer step: each step takes the corpus's next sequences that fill this many
     * positions of training rows (the learner's segment rows of 512 positions; steps of one full run
     * each when it equals the run's size, 4 × 512). 0: `batchRows` turns per step.
     */
    batchTokens: nonNegInt.max(L.batchTokens),
    /** Sokoban teacher's fraction of random moves. */
    noise: fraction,
    /**
     * Tic-Tac-Toe teacher's fraction of deliberate invalid moves (never trained on; the corpus then
     * shows how play goes on after one).
     */
    mistakes: fraction,
    /**
     * The share of the corpus's meta-episodes whose teacher reads its notes (plays from what its earlier
     * attempts recorded: Tic-Tac-Toe best-responds to the pattern player they identify, Kuhn Poker to its
     * belief over the population); the rest are note-blind. 0: every teacher note-blind.
     */
    adaptive: fraction,
    /**
     * The share of the note-blind meta-episodes whose first attempt the teacher plays as its reading self
     * would with no notes yet: its env's opening (Treasure's Bayes reader probes the centre of a 3×3 grid).
     * Later attempts stay note-blind, so the corpus shows a deliberate first probe but no reading. Absent: 0.
     */
    readerOpening: fraction.optional(),
    /**
     * When the warm model's notes state less than 80% of what happened in each attempt (its `noteRecall`)
     * on an env, the warm start is made again, once, from the start, with this many epochs (the rest
     * unchanged): notes that leave things out leave RL nothing to learn to read. Absent or 0: never.
     */
    retryEpochs: nonNegInt.optional(),
    /**
     * Whether a corpus meta-episode stops at its first success, as in training. False plays every attempt,
     * so attempts after a note are in the corpus whatever attempt 1 did.
     */
    earlyStop: z.boolean(),
    /**
     * What earlier attempts leave in the context of the corpus's reflecting layout (the one the warm model
     * is evaluated with), one of the memories that show notes (`reflection`, `reflection+history`). Absent:
     * the memory MAGE trains with. Set it with the same `rollout.memory` when a
     * run trains with another memory, e.g. `reflection+history` to keep each attempt's transcript beside
     * its note.
     */
    memory: z.enum(NOTE_MODES).optional(),
    /**
     * The size of the fresh model (width, a multiple of 32, and layers), in mage-tiny's proportions.
     * Absent: mage-tiny's 128 × 4 (~0.75 M parameters).
     */
    model: z
      .strictObject({
        hiddenSize: posInt.max(4096).multipleOf(32).optional(),
        numLayers: posInt.max(64).optional(),
      })
      .optional(),
  }),
  /** What one run may use of the machine's memory. */
  memory: z.strictObject({
    /**
     * The run's memory budget: sizes the learner's session cache (1/6), prefix KV cache (1/24) and
     * generation chunk (a row per 96 MiB, a power of two); the memory check warns when a run's estimated
     * peak exceeds it. Default "6GiB", what an 8 GB laptop can give one run (1 GiB, 256 MiB, 64 rows).
     */
    budget: memoryBudget,
  }),
});

export type TrainConfig = z.output<typeof trainConfigSchema>;

/** Every field optional, at any depth (arrays are replaced, not merged). */
export type DeepPartial<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { readonly [K in keyof T]?: DeepPartial<T[K]> }
    : T;

export type TrainConfigInput = DeepPartial<TrainConfig>;
