/**
 * The training loop (SPEC §6 steps 1–6): per iteration a rollout with `iterateMetaEpisodes` (the iteration
 * index feeds the runner, so tasks differ per iteration and derive only from (seed, iteration)),
 * advantages from the injected function, optional reference log-probs, `learner.update` with the injected
 * token loss, periodic evaluation with `evaluate`, and atomic checkpoints in the run directory.
 */

import { join } from 'node:path';
import {
  ConfigError,
  InvalidArgumentError,
  MageError,
  NumericInstabilityError,
  throwIfAborted,
} from '../errors';
import { evaluate } from '../evaluation';
import { pathExists, readJsonFile, writeJsonAtomic } from '../io';
import type { JsonObject, JsonValue } from '../json';
import { computeMetrics, type MetaEpisodeMetricsV1 } from '../metrics';
import type { MetaEpisodeBatchRecord, RowRecord } from '../records';
import { iterateMetaEpisodes } from '../runner';
import type { EnvV1, LearnerRowV1, LearnerV1 } from '../spec';
import type { LearnerInputRowV1, PackedRowV1 } from '../spec/learner';
import { creditDiagnostics } from './credit-diagnostics';
import type { EvalStatsV1, MetricsLineV1, TrainingEvent, TrainingResultV1, UpdateStatsV1 } from './events';
import { type ResolvedTrainingConfig, resolveTrainingOptions, type TrainingOptions } from './options';
import { packRows } from './packing';
import {
  assertFreshRunDir,
  CHECKPOINT_STATE_FORMAT,
  type CheckpointStateV1,
  cleanRunDir,
  jsonDiff,
  latestCheckpoint,
  type MetricsWriter,
  metricsWriter,
  RUN_CONFIG_FORMAT,
  runPaths,
  truncateMetrics,
  writeCheckpoint,
} from './run-dir';

const now = (): number => performance.now();

function runConfig<S, A>(options: TrainingOptions<S, A>, training: ResolvedTrainingConfig): JsonObject {
  return {
    format: RUN_CONFIG_FORMAT,
    training: training as unknown as JsonObject,
    env: { id: options.env.id, options: options.env.options },
    learner: options.learner.id,
    memory: options.memory.id,
    population: (options.population ?? null) as unknown as JsonValue,
    opponents: options.opponents ?? null,
    extra: options.config ?? null,
  };
}

/** Differences that forbid a resume (everything but the iteration count and `extra`). */
function resumeDiff(saved: unknown, current: JsonObject): string[] {
  const strip = (c: unknown): unknown => {
    if (typeof c !== 'object' || c === null) return c;
    const { training, extra: _extra, ...rest } = c as Record<string, unknown>;
    const { iterations: _iterations, ...t } = (training ?? {}) as Record<string, unknown>;
    return JSON.parse(JSON.stringify({ ...rest, training: t }));
  };
  return jsonDiff(strip(saved), strip(current));
}

function finiteOrNull(value: number | undefined): number | null {
  return value === undefined || !Number.isFinite(value) ? null : value;
}

/**
 * Runs training and yields typed events; returns a summary. Abort with `signal` (checked between phases and
 * inside rollouts and updates). With `runDir`, writes config.json, metrics.jsonl and checkpoints; with
 * `resume`, continues from the latest complete checkpoint and reproduces the uninterrupted run exactly.
 */
export async function* iterateTraining<S, A>(
  options: TrainingOptions<S, A>,
): AsyncGenerator<TrainingEvent, TrainingResultV1, undefined> {
  const config = resolveTrainingOptions(options);
  const { env, learner, signal } = options;
  const started = now();
  throwIfAborted(signal);

  // Run directory: fresh start or resume.
  let startIteration = 0;
  let resumedFrom: { iteration: number; dir: string } | null = null;
  let lastCheckpoint: string | null = null;
  let metrics: MetricsWriter | null = null;
  const runDir = options.runDir ?? null;
  if (runDir !== null) {
    const paths = runPaths(runDir);
    const configJson = runConfig(options, config);
    await cleanRunDir(runDir);
    if (options.resume && (await pathExists(paths.config))) {
      const diff = resumeDiff(await readJsonFile(paths.config), configJson);
      if (diff.length > 0) {
        throw new ConfigError(
          `Cannot resume '${runDir}': the configuration differs from the saved config.json at ${diff.join(', ')}.`,
          { path: diff[0] as string, context: { runDir, differences: diff } },
        );
      }
    } else if (!options.resume) {
      await assertFreshRunDir(runDir);
    }
    const checkpoint = options.resume ? await latestCheckpoint(runDir) : null;
    if (checkpoint) {
      if (checkpoint.state.seed !== config.seed) {
        throw new ConfigError(
          `Cannot resume '${runDir}': its checkpoint was written with seed ${String(checkpoint.state.seed)}, not ${String(config.seed)}.`,
          { path: 'seed' },
        );
      }
      await learner.load(checkpoint.dir);
      if (options.memoryState && checkpoint.state.memory !== null) {
        options.memoryState.restore(checkpoint.state.memory);
      }
      await truncateMetrics(paths.metrics, checkpoint.state.metricsLines);
      startIteration = checkpoint.state.nextIteration;
      resumedFrom = { iteration: checkpoint.iteration, dir: checkpoint.dir };
      lastCheckpoint = checkpoint.dir;
      metrics = metricsWriter(paths.metrics, checkpoint.state.metricsLines);
    } else {
      await truncateMetrics(paths.metrics, 0);
      metrics = metricsWriter(paths.metrics, 0);
    }
    await writeJsonAtomic(paths.config, configJson);
  }

  const record = async (line: MetricsLineV1): Promise<void> => {
    await metrics?.append(line);
  };

  yield {
    type: 'run-start',
    runDir,
    startIteration,
    iterations: config.iterations,
    resumedFrom,
    config,
  };

  let lastEval: EvalStatsV1 | null = null;
  const runEvaluation = async (iteration: number, completed: number): Promise<EvalStatsV1> => {
    const ev = options.evaluation;
    const resolved = config.evaluation;
    if (!ev || !resolved) throw new InvalidArgumentError('No evaluation configured.');
    const t0 = now();
    const suite = async (which: 'inDomain' | 'outOfDomain'): Promise<MetaEpisodeMetricsV1 | null> => {
      const s = ev[which];
      if (!s) return null;
      const suiteEnv: EnvV1<S, A> = s.env ?? env;
      const result = await evaluate({
        env: suiteEnv,
        policy: learner.policy,
        memory: ev.memory ?? options.memory,
        ...(s.opponents && s.opponents.length > 0 ? { opponents: s.opponents } : {}),
        ...(options.makeOpponent ? { makeOpponent: options.makeOpponent } : {}),
        episodes: resolved.episodes,
        attempts: resolved.attempts,
        earlyStop: resolved.earlyStop,
        seats: resolved.seats,
        seed: `${String(resolved.seed)}/${which}`,
        sampling: resolved.sampling,
        ...(config.context === null ? {} : { context: config.context }),
        ...(config.style === null ? {} : { style: config.style }),
        ...(config.maxTokens === null ? {} : { maxTokens: config.maxTokens }),
        ...(signal ? { signal } : {}),
        ...(options.onRunnerEvent ? { onEvent: (e) => options.onRunnerEvent?.(e, 'eval') } : {}),
      });
      return result.metrics;
    };
    const inDomain = await suite('inDomain');
    const outOfDomain = await suite('outOfDomain');
    return { iteration, completed, inDomain, outOfDomain, timing: { seconds: (now() - t0) / 1000 } };
  };

  if (config.evaluation?.atStart && startIteration === 0) {
    lastEval = await runEvaluation(-1, 0);
    await record({ type: 'eval', ...lastEval });
    yield { type: 'eval-end', ...lastEval };
  }

  for (let iteration = startIteration; iteration < config.iterations; iteration++) {
    throwIfAborted(signal);
    yield { type: 'iteration-start', iteration };

    // 1–3. Rollout.
    const t0 = now();
    let batch: MetaEpisodeBatchRecord | null = null;
    let policyCalls = 0;
    for await (const event of iterateMetaEpisodes({
      env,
      policy: learner.policy,
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
      ...(config.context === null ? {} : { context: config.context }),
      ...(config.style === null ? {} : { style: config.style }),
      ...(config.maxTokens === null ? {} : { maxTokens: config.maxTokens }),
      ...(signal ? { signal } : {}),
    })) {
      options.onRunnerEvent?.(event, 'train');
      if (event.type === 'rollout-end') {
        batch = event.batch;
        policyCalls = event.policyCalls;
      }
    }
    if (batch === null) throw new InvalidArgumentError('The rollout ended without a batch.');
    const rows = batch.rows;
    const trainable: number[] = [];
    rows.forEach((r, i) => {
      if (r.responseTokens.length > 0) trainable.push(i);
    });
    const rollout = {
      iteration,
      metrics: computeMetrics(batch),
      rows: rows.length,
      trainableRows: trainable.length,
      policyCalls,
      timing: { seconds: (now() - t0) / 1000 },
    };
    await record({ type: 'rollout', ...rollout });
    yield { type: 'rollout-end', batch, ...rollout };

    // 4–5. Advantages and update.
    throwIfAborted(signal);
    const t1 = now();
    const advantages = computeAdvantagesChecked(options.advantages, rows);
    const learnerRows: LearnerRowV1[] = trainable.map((i) => {
      const r = rows[i]!;
      return {
        promptTokens: r.promptTokens,
        responseTokens: r.responseTokens,
        oldLogprobs: r.logprobs,
        advantage: advantages[i]!,
      };
    });
    const trainRows = await learnerInput(options, learnerRows, (i) => rows[trainable[i]!]!.slot);
    const result =
      trainRows.length === 0
        ? null
        : await updateLearner(learner, iteration, lastCheckpoint, {
            rows: trainRows,
            loss: options.loss,
            entropyCoef: config.entropyCoef,
            epochs: config.epochs,
            ...(config.miniBatchRows === null ? {} : { miniBatchRows: config.miniBatchRows }),
            ...(signal ? { signal } : {}),
          });
    const update = updateStats(iteration, result, {
      advantages,
      batch,
      trainedRows: result === null ? 0 : learnerRows.length,
      seconds: (now() - t1) / 1000,
    });
    await record({ type: 'update', ...update });
    yield { type: 'update-end', ...update };

    // 6. Evaluation and checkpoint.
    const last = iteration === config.iterations - 1;
    if (config.evaluation && ((iteration + 1) % config.evaluation.every === 0 || last)) {
      lastEval = await runEvaluation(iteration, iteration + 1);
      await record({ type: 'eval', ...lastEval });
      yield { type: 'eval-end', ...lastEval };
    }
    if (runDir !== null && metrics !== null && ((iteration + 1) % config.checkpointEvery === 0 || last)) {
      throwIfAborted(signal);
      await metrics.sync();
      const state: CheckpointStateV1 = {
        format: CHECKPOINT_STATE_FORMAT,
        iteration,
        nextIteration: iteration + 1,
        seed: config.seed,
        learnerId: learner.id,
        metricsLines: metrics.lines,
        memory: options.memoryState ? options.memoryState.save() : null,
      };
      const saved = await writeCheckpoint({
        runDir,
        state,
        save: (dir) => learner.save(dir),
        keep: config.keepCheckpoints,
      });
      lastCheckpoint = saved.dir;
      yield { type: 'checkpoint-saved', iteration, dir: saved.dir, pruned: saved.pruned };
    }
  }

  const completed = Math.max(startIteration, config.iterations);
  yield { type: 'run-end', iterations: completed, lastCheckpoint, seconds: (now() - started) / 1000 };
  return { iterations: completed, lastCheckpoint, lastEval };
}

/**
 * The rows `learner.update` gets: packed per slot (`packRows`) when the learner takes packed rows and
 * `options.packRows` is not false, plain otherwise; with reference log-probs when a reference is set
 * (scored packed when the reference takes packed rows too).
 */
async function learnerInput<S, A>(
  options: TrainingOptions<S, A>,
  rows: readonly LearnerRowV1[],
  slotOf: (index: number) => string,
): Promise<LearnerInputRowV1[]> {
  const packing = options.packRows === false ? undefined : options.learner.packedRows;
  const reference = options.reference;
  if (packing === undefined) {
    if (!reference || rows.length === 0) return [...rows];
    const ref = await reference.logprobs(rows);
    return rows.map((r, i) => ({ ...r, refLogprobs: Array.from(ref[i] ?? []) }));
  }
  const maxTokens = Math.min(packing.maxTokens, reference?.packedRows?.maxTokens ?? packing.maxTokens);
  const packed = packRows(rows, { maxTokens, groupOf: (_, i) => slotOf(i) }).rows;
  if (!reference || packed.length === 0) return packed;
  if (reference.packedRows !== undefined) {
    const ref = await reference.logprobs(packed);
    return packed.map((p, i) => withRef(p, ref[i] ?? new Float32Array(0)));
  }
  // A reference without packed rows scores the spans as plain rows.
  const plain = packed.flatMap((p) =>
    p.spans.map((s) => ({
      promptTokens: p.tokens.slice(0, s.start),
      responseTokens: p.tokens.slice(s.start, s.start + s.length),
    })),
  );
  const ref = await reference.logprobs(plain);
  let k = 0;
  return packed.map((p) => {
    const parts = p.spans.map(() => ref[k++] ?? new Float32Array(0));
    const flat = new Float32Array(parts.reduce((n, a) => n + a.length, 0));
    let o = 0;
    for (const a of parts) {
      flat.set(a, o);
      o += a.length;
    }
    return withRef(p, flat);
  });
}

/** A packed row with its spans' reference log-probs from one concatenated array. */
function withRef(row: PackedRowV1, ref: Float32Array): PackedRowV1 {
  let o = 0;
  return {
    tokens: row.tokens,
    spans: row.spans.map((s) => {
      const refLogprobs = Array.from(ref.subarray(o, o + s.length));
      o += s.length;
      return { ...s, refLogprobs };
    }),
  };
}

type LearnerUpdate = Parameters<LearnerV1['update']>[0];
type LearnerUpdateResult = Awaited<ReturnType<LearnerV1['update']>>;

/** `learner.update`, with a numeric failure turned into an error that names the last good checkpoint. */
async function updateLearner(
  learner: LearnerV1,
  iteration: number,
  lastCheckpoint: string | null,
  request: LearnerUpdate,
): Promise<LearnerUpdateResult> {
  try {
    return await learner.update(request);
  } catch (error) {
    if (MageError.isInstance(error) && error.code === 'NUMERIC_INSTABILITY') {
      throw new NumericInstabilityError(
        `Training stopped in iteration ${iteration}: ${error.message} No checkpoint was written after the failed update; ${
          lastCheckpoint === null
            ? 'there is no earlier checkpoint.'
            : `the last good checkpoint is ${lastCheckpoint}. Resume from it, e.g. with a lower learning rate.`
        }`,
        { cause: error, context: { iteration, lastCheckpoint } },
      );
    }
    throw error;
  }
}

/** The `update` line of an iteration; `result` is null when no row had response tokens. */
function updateStats(
  iteration: number,
  result: LearnerUpdateResult | null,
  run: {
    readonly advantages: Float64Array;
    readonly batch: MetaEpisodeBatchRecord;
    readonly trainedRows: number;
    readonly seconds: number;
  },
): UpdateStatsV1 {
  const { advantages, seconds } = run;
  let mean = 0;
  for (const a of advantages) mean += a;
  mean /= Math.max(1, advantages.length);
  let variance = 0;
  for (const a of advantages) variance += (a - mean) ** 2;
  variance /= Math.max(1, advantages.length);
  const tokens = result?.tokens ?? 0;
  const stats = result?.stats ?? {};
  return {
    iteration,
    steps: result?.steps ?? 0,
    skippedSteps: result?.skippedSteps ?? 0,
    loss: result === null ? 0 : finiteOrNull(result.loss),
    kl: finiteOrNull(stats.refKl ?? stats.kl),
    approxKl: finiteOrNull(stats.approxKl),
    entropy: result?.entropy ?? 0,
    clipFraction: finiteOrNull(stats.clipFraction),
    gradNorm: result?.gradNorm ?? 0,
    tokens,
    trainedRows: run.trainedRows,
    skippedRows: advantages.length - run.trainedRows,
    advantageMean: mean,
    advantageStd: Math.sqrt(variance),
    credit: creditDiagnostics(run.batch, advantages),
    stats: Object.fromEntries(Object.entries(stats).filter(([, v]) => Number.isFinite(v))),
    timing: { seconds, tokensPerSecond: seconds > 0 ? tokens / seconds : 0 },
  };
}

function computeAdvantagesChecked(
  fn: (rows: readonly RowRecord[]) => ArrayLike<number>,
  rows: readonly RowRecord[],
): Float64Array {
  const values = fn(rows);
  if (values.length !== rows.length) {
    throw new InvalidArgumentError(
      `The advantage function returned ${values.length} values for ${rows.length} rows.`,
      { context: { expected: rows.length, got: values.length } },
    );
  }
  const out = Float64Array.from(values);
  const bad = out.findIndex((v) => !Number.isFinite(v));
  if (bad >= 0) {
    throw new InvalidArgumentError(`The advantage function returned ${out[bad]} for row ${bad}.`, {
      context: { row: bad, slot: rows[bad]?.slot, attempt: rows[bad]?.attempt },
    });
  }
  return out;
}

/** Promise wrapper of `iterateTraining`; `onEvent` sees every event. */
export async function runTraining<S, A>(
  options: TrainingOptions<S, A> & { readonly onEvent?: (event: TrainingEvent) => void },
): Promise<TrainingResultV1> {
  const { onEvent, ...rest } = options;
  const iterator = iterateTraining(rest);
  for (;;) {
    const next = await iterator.next();
    if (next.done) return next.value;
    onEvent?.(next.value);
  }
}

export const checkpointStatePath = (dir: string): string => join(dir, 'state.json');
