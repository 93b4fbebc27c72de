/**
 * The `update-shapes` bench's recipes (the runs whose update it times) and the file that carries one
 * recipe's captured update from `capture.ts` to both timing sides (`ours.ts`, `pytorch/update_bench.py`).
 */

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TrainConfigInput } from '@mage-rl/recipes';

/** A `mage train` call: what the CLI flags of the recipe resolve to. */
export interface UpdateRecipe {
  readonly id: string;
  /** The command it stands for (documentation only). */
  readonly command: string;
  readonly env: string;
  /** `--env-package`, resolved from the repository root as the CLI resolves it from its working directory. */
  readonly envPackage?: string;
  readonly preset: 'laptop';
  readonly seed: number;
  readonly overrides: TrainConfigInput;
}

export const RECIPES: readonly UpdateRecipe[] = [
  {
    id: 'higher-lower',
    command:
      'mage train --env-package ./examples/custom-env --env higher-lower --set env.options.maxTurns=1 --set env.options.max=6 --seed 13 --set advantage.episodeBaseline=attempt --set ppo.klCoef=0.1 --set ppo.miniBatchRows=8 --set advantage.reflectWeight=0',
    env: 'higher-lower',
    envPackage: './examples/custom-env',
    preset: 'laptop',
    seed: 13,
    overrides: {
      env: { options: { maxTurns: 1, max: 6 } },
      advantage: { episodeBaseline: 'attempt', reflectWeight: 0 },
      ppo: { klCoef: 0.1, miniBatchRows: 8 },
    },
  },
  {
    id: 'tictactoe',
    command: 'mage train --env tictactoe --preset laptop',
    env: 'tictactoe',
    preset: 'laptop',
    seed: 1,
    overrides: {},
  },
];

/** The repository root (the CLI's working directory in the recipes' commands). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Where warm starts are cached: the CLI's default, `.mage-cache` under the repository root. */
export const CACHE_DIR = join(REPO_ROOT, '.mage-cache');

/** Where captured updates are kept (`MAGE_BENCH_UPDATE_DIR`, else under the OS temporary directory). */
export const captureDir = (): string =>
  process.env.MAGE_BENCH_UPDATE_DIR ?? join(tmpdir(), 'mage-bench-update-shapes-v1');

export const capturePath = (recipe: string): string => join(captureDir(), `${recipe}.json`);

/** The learner's micro-batch limits, its defaults (`microBatchRows` 8, `microBatchTokens` 8 × 256). */
export const MICRO_BATCH_ROWS = 8;
export const MICRO_BATCH_TOKENS = MICRO_BATCH_ROWS * 256;

/** One span of a packed row, as the trainer handed it to `learner.update`. */
export interface CapturedSpan {
  readonly start: number;
  readonly length: number;
  readonly oldLogprobs: number[];
  readonly advantage: number;
  /** The trainer's reference log-probs (each side recomputes them; these check the recomputation). */
  readonly refLogprobs: number[];
}

/** The PPO token loss's options (`ppoTokenLoss`), spelled out for the PyTorch side. */
export interface CapturedLoss {
  readonly clip: number;
  readonly clipHigh: number;
  readonly dualClip: number | null;
  readonly klCoef: number;
  readonly klClamp: number;
  readonly klUpperEdge: 'hold' | 'release-advantaged';
  readonly aggregation: 'token-mean' | 'seq-mean-token-mean';
}

/** What `capture.ts` writes: one real update of a recipe, exactly as the trainer asked for it. */
export interface CapturedUpdate {
  readonly recipe: string;
  readonly command: string;
  /** The warm start the learner and its reference were loaded from. */
  readonly warmStart: string;
  /** `mage-tiny.json`'s model config. */
  readonly model: Record<string, unknown>;
  /** The learner's options as `mage train` loads it (`localLearners` in the trainer). */
  readonly learner: {
    readonly seed: string;
    readonly optimizer: { readonly lr: number; readonly weightDecay: number; readonly maxGradNorm: number };
    readonly logprobTemperature?: number;
    readonly memoryBudget: string | number;
    /** The learner's micro-batch limits (its defaults: 8 rows, 8 × 256 padded positions per run). */
    readonly microBatchRows: number;
    readonly microBatchTokens: number;
  };
  readonly request: {
    readonly miniBatchRows: number | null;
    readonly epochs: number;
    readonly entropyCoef: number;
  };
  readonly loss: CapturedLoss;
  readonly rows: { readonly tokens: number[]; readonly spans: CapturedSpan[] }[];
  /**
   * The update's mini-batches as row indices per epoch (the learner's seeded shuffle and its span-count
   * rule, reproduced), so that the PyTorch side takes the same optimizer steps on the same rows.
   */
  readonly miniBatches: number[][][];
  /** What the trainer's own update of that iteration did (cold sessions, fresh first mini-batch). */
  readonly trainer: {
    readonly rolloutSeconds: number;
    readonly referenceMs: number;
    readonly updateMs: number;
    readonly steps: number;
    readonly tokens: number;
    readonly loss: number;
    readonly trainedRows: number;
  };
}
