/**
 * Evaluation: N meta-episodes per named opponent with a given policy and memory,
 * returning per-opponent and overall metrics. Works with scripted policies and with a learner's policy.
 */

import type {
  ContextLayout,
  EnvV1,
  MemoryV1,
  MetaEpisodeBatchRecord,
  OpponentV1,
  PolicyV1,
  PromptStyle,
  SamplingOptions,
} from '@mage-rl/spec';
import { ConfigError } from '@mage-rl/spec';
import { computeMetrics, type MetaEpisodeMetricsV1, mergeBatches } from '../metrics';
import { type RunnerEvent, runMetaEpisodes, type SeatOption } from '../runner';

export interface EvaluateOptions<S = unknown, A = unknown> {
  readonly env: EnvV1<S, A>;
  readonly policy: PolicyV1;
  readonly memory: MemoryV1;
  /** Opponent ids to evaluate against (ignored for single-agent envs). */
  readonly opponents?: readonly string[];
  readonly makeOpponent?: (opponentId: string) => OpponentV1<S, A>;
  /** Meta-episodes per opponent (per env for single-agent envs). Default 16. */
  readonly episodes?: number;
  /** K. Default 3. */
  readonly attempts?: number;
  readonly context?: ContextLayout;
  readonly style?: PromptStyle;
  readonly earlyStop?: boolean;
  readonly seats?: SeatOption;
  /** Default 0. Evaluation seeds should differ from training seeds. */
  readonly seed?: number | string;
  /**
   * Meta-episodes played together in one lock-step run. Retrieval memories only see the cases of
   * earlier waves, so `waveSize` < total lets them learn during one evaluation. Default: all at once.
   */
  readonly waveSize?: number;
  readonly sampling?: Omit<SamplingOptions, 'signal'>;
  readonly maxTokens?: { readonly play?: number; readonly reflect?: number };
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: RunnerEvent) => void;
}

export interface EvaluationResultV1 {
  readonly metrics: MetaEpisodeMetricsV1;
  readonly batch: MetaEpisodeBatchRecord;
}

/**
 * Every meta-episode is its own task (group size 1, a fresh task seed each); group g faces
 * `opponents[g % opponents.length]`, so each opponent gets `episodes` meta-episodes.
 */
export async function evaluate<S, A>(options: EvaluateOptions<S, A>): Promise<EvaluationResultV1> {
  const episodes = options.episodes ?? 16;
  if (!Number.isInteger(episodes) || episodes < 1) {
    throw new ConfigError(`episodes must be a positive integer, got ${String(episodes)}.`, {
      path: 'episodes',
    });
  }
  const opponents = options.env.needsOpponent ? (options.opponents ?? []) : [];
  if (options.env.needsOpponent && opponents.length === 0) {
    throw new ConfigError(`Env '${options.env.id}' needs at least one opponent id to evaluate against.`, {
      path: 'opponents',
    });
  }
  const total = episodes * Math.max(1, opponents.length);
  const waveSize = options.waveSize ?? total;
  if (!Number.isInteger(waveSize) || waveSize < 1) {
    throw new ConfigError(`waveSize must be a positive integer, got ${String(waveSize)}.`, {
      path: 'waveSize',
    });
  }
  const batches: MetaEpisodeBatchRecord[] = [];
  for (let offset = 0; offset < total; offset += waveSize) {
    const groups = Math.min(waveSize, total - offset);
    batches.push(
      await runMetaEpisodes({
        env: options.env,
        policy: options.policy,
        memory: options.memory,
        ...(opponents.length > 0 ? { opponents } : {}),
        ...(options.makeOpponent ? { makeOpponent: options.makeOpponent } : {}),
        groups,
        groupSize: 1,
        groupOffset: offset,
        seed: options.seed ?? 0,
        ...(options.attempts === undefined ? {} : { attempts: options.attempts }),
        ...(options.context === undefined ? {} : { context: options.context }),
        ...(options.style === undefined ? {} : { style: options.style }),
        ...(options.earlyStop === undefined ? {} : { earlyStop: options.earlyStop }),
        ...(options.seats === undefined ? {} : { seats: options.seats }),
        ...(options.sampling === undefined ? {} : { sampling: options.sampling }),
        ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
      }),
    );
  }
  const batch = mergeBatches(batches);
  return { metrics: computeMetrics(batch), batch };
}
