/**
 * The rollout of one iteration (`iterateMetaEpisodes` with the iteration index, so tasks derive only from
 * (seed, iteration)) and the periodic evaluation of the policy on the in-domain and out-of-domain suites.
 */

import type { MetaEpisodeBatchRecord } from '@mage-rl/spec';
import { InvalidArgumentError } from '@mage-rl/spec';
import { evaluate } from '../evaluation';
import { computeMetrics, type MetaEpisodeMetricsV1 } from '../metrics';
import { iterateMetaEpisodes } from '../runner';
import type { EvalStatsV1, RolloutStatsV1 } from './events';
import type { ResolvedTrainingConfig, TrainingOptions } from './options';
import { peakRssBytes } from './peak-rss';
import { REPLAY_EVAL_MAX, type ReplayEpisodeV1, replayEpisodes } from './replay-record';

const now = (): number => performance.now();

/** Prompt layout options of the resolved config (absent ones left to the runner's defaults). */
function layout(config: ResolvedTrainingConfig) {
  return {
    ...(config.context === null ? {} : { context: config.context }),
    ...(config.style === null ? {} : { style: config.style }),
    ...(config.maxTokens === null ? {} : { maxTokens: config.maxTokens }),
  };
}

/** Plays the iteration's meta-episodes with the learner's policy; returns the batch and its statistics. */
export async function rolloutPhase<S, A>(
  options: TrainingOptions<S, A>,
  config: ResolvedTrainingConfig,
  iteration: number,
): Promise<{ batch: MetaEpisodeBatchRecord; stats: RolloutStatsV1 }> {
  const t0 = now();
  let batch: MetaEpisodeBatchRecord | null = null;
  let policyCalls = 0;
  for await (const event of iterateMetaEpisodes({
    env: options.env,
    policy: options.learner.policy,
    memory: options.memory,
    ...(options.population ? { population: options.population } : {}),
    ...(options.opponents ? { opponents: options.opponents } : {}),
    ...(options.makeOpponent ? { makeOpponent: options.makeOpponent } : {}),
    groups: config.groups,
    groupSize: config.groupSize,
    attempts: config.attempts,
    earlyStop: config.earlyStop,
    seats: config.seats,
    seed: config.seed,
    iteration,
    sampling: config.sampling,
    ...layout(config),
    ...(options.signal ? { signal: options.signal } : {}),
  })) {
    options.onRunnerEvent?.(event, 'train');
    if (event.type === 'rollout-end') {
      batch = event.batch;
      policyCalls = event.policyCalls;
    }
  }
  if (batch === null) throw new InvalidArgumentError('The rollout ended without a batch.');
  const stats: RolloutStatsV1 = {
    iteration,
    metrics: computeMetrics(batch),
    rows: batch.rows.length,
    trainableRows: batch.rows.filter((r) => r.responseTokens.length > 0).length,
    policyCalls,
    timing: { seconds: (now() - t0) / 1000, peakRssBytes: peakRssBytes() },
  };
  return { batch, stats };
}

/**
 * Evaluates the learner's policy on the configured suites; the same tasks (`<eval seed>/<suite>`) at every
 * call. `iteration` is the iteration it follows (−1 before training), `completed` the updates applied.
 * Also returns the evaluation's meta-episodes (up to `REPLAY_EVAL_MAX` per suite) for the replay record.
 */
export async function evaluationPhase<S, A>(
  options: TrainingOptions<S, A>,
  config: ResolvedTrainingConfig,
  iteration: number,
  completed: number,
): Promise<{ stats: EvalStatsV1; episodes: ReplayEpisodeV1[] }> {
  const ev = options.evaluation;
  const resolved = config.evaluation;
  if (!ev || !resolved) throw new InvalidArgumentError('No evaluation configured.');
  const t0 = now();
  const episodes: ReplayEpisodeV1[] = [];
  const suite = async (which: 'inDomain' | 'outOfDomain'): Promise<MetaEpisodeMetricsV1 | null> => {
    const s = ev[which];
    if (!s) return null;
    const result = await evaluate({
      env: s.env ?? options.env,
      policy: options.learner.policy,
      memory: ev.memory ?? options.memory,
      ...(s.opponents && s.opponents.length > 0 ? { opponents: s.opponents } : {}),
      ...(options.makeOpponent ? { makeOpponent: options.makeOpponent } : {}),
      episodes: resolved.episodes,
      attempts: resolved.attempts,
      earlyStop: resolved.earlyStop,
      seats: resolved.seats,
      seed: `${String(resolved.seed)}/${which}`,
      sampling: resolved.sampling,
      ...layout(config),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onRunnerEvent ? { onEvent: (e) => options.onRunnerEvent?.(e, 'eval') } : {}),
    });
    episodes.push(...replayEpisodes(result.batch, which, { sample: REPLAY_EVAL_MAX }));
    return result.metrics;
  };
  const inDomain = await suite('inDomain');
  const outOfDomain = await suite('outOfDomain');
  const stats: EvalStatsV1 = {
    iteration,
    completed,
    inDomain,
    outOfDomain,
    timing: { seconds: (now() - t0) / 1000, peakRssBytes: peakRssBytes() },
  };
  return { stats, episodes };
}
