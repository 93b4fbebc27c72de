/** Typed progress events of `iterateTraining` and the JSON lines of metrics.jsonl. */

import type { MetaEpisodeBatchRecord } from '@mage-rl/spec';
import type { MetaEpisodeMetricsV1 } from '../metrics';
import type { CreditDiagnosticsV1 } from './credit-diagnostics';
import type { ResolvedTrainingConfig } from './options';

/** Rollout statistics of one iteration (also the `rollout` line of metrics.jsonl). */
export interface RolloutStatsV1 {
  readonly iteration: number;
  /** Per attempt pass@k, success, draws, returns; invalid rates; lengths — overall and per opponent. */
  readonly metrics: MetaEpisodeMetricsV1;
  readonly rows: number;
  /** Rows with response tokens (text-only policies produce none). */
  readonly trainableRows: number;
  readonly policyCalls: number;
  /** Wall time, and the process's peak RSS so far (`process.resourceUsage().maxRSS`, in bytes). */
  readonly timing: { readonly seconds: number; readonly peakRssBytes: number };
}

/** Update statistics of one iteration (also the `update` line of metrics.jsonl). */
export interface UpdateStatsV1 {
  readonly iteration: number;
  /** Optimizer steps taken. */
  readonly steps: number;
  /** Steps skipped because the loss or gradients were NaN/Inf. */
  readonly skippedSteps: number;
  /** Mean loss over the steps taken; null when it was not finite. */
  readonly loss: number | null;
  /** KL to the reference policy (the loss's `refKl` or `kl` stat), null when the loss does not report it. */
  readonly kl: number | null;
  /** Mean log π_old − log π (the loss's `approxKl` stat), null when not reported. */
  readonly approxKl: number | null;
  readonly entropy: number;
  /** The loss's `clipFraction` stat, null when not reported. */
  readonly clipFraction: number | null;
  readonly gradNorm: number;
  readonly tokens: number;
  /** Rows handed to the learner and rows left out for lack of response tokens. */
  readonly trainedRows: number;
  readonly skippedRows: number;
  readonly advantageMean: number;
  readonly advantageStd: number;
  /** Where the credit went: outcomes, returns and advantages per attempt and turn kind, token shares. */
  readonly credit: CreditDiagnosticsV1;
  /** Every finite stat the token loss reported, averaged over mini-batches by the learner. */
  readonly stats: Readonly<Record<string, number>>;
  /** Wall time, throughput, and the process's peak RSS so far in bytes. */
  readonly timing: {
    readonly seconds: number;
    readonly tokensPerSecond: number;
    readonly peakRssBytes: number;
  };
}

/** Evaluation results (also the `eval` line of metrics.jsonl). */
export interface EvalStatsV1 {
  /** The iteration the evaluation followed; −1 for the evaluation before training. */
  readonly iteration: number;
  /** Updates applied before this evaluation. */
  readonly completed: number;
  readonly inDomain: MetaEpisodeMetricsV1 | null;
  readonly outOfDomain: MetaEpisodeMetricsV1 | null;
  /** Wall time, and the process's peak RSS so far in bytes. */
  readonly timing: { readonly seconds: number; readonly peakRssBytes: number };
}

export type TrainingEvent =
  | {
      readonly type: 'run-start';
      readonly runDir: string | null;
      /** First iteration this call runs (> 0 after a resume). */
      readonly startIteration: number;
      readonly iterations: number;
      readonly resumedFrom: { readonly iteration: number; readonly dir: string } | null;
      readonly config: ResolvedTrainingConfig;
    }
  | { readonly type: 'iteration-start'; readonly iteration: number }
  | ({ readonly type: 'rollout-end'; readonly batch: MetaEpisodeBatchRecord } & RolloutStatsV1)
  | ({ readonly type: 'update-end' } & UpdateStatsV1)
  | ({ readonly type: 'eval-end' } & EvalStatsV1)
  | {
      readonly type: 'checkpoint-saved';
      readonly iteration: number;
      readonly dir: string;
      /** Older checkpoint directories removed to respect `keepCheckpoints`. */
      readonly pruned: readonly string[];
    }
  | {
      readonly type: 'run-end';
      /** Iterations completed in total (including those before a resume). */
      readonly iterations: number;
      readonly lastCheckpoint: string | null;
      readonly seconds: number;
    };

export type TrainingEventType = TrainingEvent['type'];

/** A line of metrics.jsonl. */
export type MetricsLineV1 =
  | ({ readonly type: 'rollout' } & RolloutStatsV1)
  | ({ readonly type: 'update' } & UpdateStatsV1)
  | ({ readonly type: 'eval' } & EvalStatsV1);

/** What `runTraining` resolves to. */
export interface TrainingResultV1 {
  readonly iterations: number;
  readonly lastCheckpoint: string | null;
  /** The last evaluation of this call, if any ran. */
  readonly lastEval: EvalStatsV1 | null;
}
