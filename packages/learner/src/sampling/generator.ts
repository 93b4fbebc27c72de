/**
 * Batched generation: prefill of right-padded prompts, then one decode step per token with a static
 * KV buffer held in JS next to the sessions (the runner scatters each step's new keys/values into it).
 * Rows carry their own seeds, so a row's tokens do not depend on its batch. Calls are serialised:
 * the KV buffers are shared by all calls of one runner. With a prefix cache, every row's keys/values
 * are saved in the runner after the call, and a later prompt that starts with a saved sequence (the
 * next turn of the same transcript) restores them and prefills only its new tokens.
 */

import { at, createRng, InvalidArgumentError, throwIfAborted } from '@mage-rl/core';
import { serializeGraph } from '../graph/serialize';
import type { ModelConfig } from '../model/config';
import { estimateSessionBytes } from '../model/memory-estimate';
import { countParams } from '../model/params';
import { MASK_NEG } from '../model/transformer';
import type { GraphRunner } from '../runtime/runner';
import { outputData, type TensorValue } from '../runtime/session';
import { zip } from '../util/arrays';
import type { GenerateContext, PrefixCacheState, RowState } from './generate-context';
import { checkRequest, type GenerateShape, nextPow2, planShape, runRows } from './generate-shape';
import { buildDecodeGraph, type InferenceGraphOptions } from './graphs';
import { kvScatter, matchPrefixes, prefill, prefillCached, saveRows } from './prefill';
import { createPrefixIndex, type PrefixCacheOptions, type PrefixMatch } from './prefix-cache';
import { logprobAt, type SamplingParams, sampleToken } from './sample';

export interface GenerateTokensOptions {
  readonly prompts: readonly (readonly number[])[];
  /** One seed per prompt. */
  readonly seeds: readonly (number | string)[];
  /** One limit per prompt or one for all. */
  readonly maxTokens: number | readonly number[];
  readonly sampling: SamplingParams;
  readonly eosTokenIds?: readonly number[];
  /** Called after each token; true ends the row with finish reason `stop`. */
  readonly shouldStop?: (row: number, tokens: readonly number[]) => boolean;
  readonly signal?: AbortSignal;
}

export interface GeneratedRow {
  readonly tokens: number[];
  /** Model log-prob (at the generator's `logprobTemperature`, no truncation) of each sampled token. */
  readonly logprobs: number[];
  readonly finishReason: 'stop' | 'length' | 'eos';
}

/** Counters of a generator since it was created (prompt positions, sampled tokens, wall time). */
export interface GeneratorStats {
  readonly calls: number;
  /** Prompt positions of all rows. */
  readonly promptTokens: number;
  /** Prompt positions restored from the prefix cache instead of being prefilled. */
  readonly reusedTokens: number;
  /** Milliseconds in prefill (including restoring cached keys/values). */
  readonly prefillMs: number;
  /** Decode steps' fed tokens (one per unfinished row and step). */
  readonly decodeTokens: number;
  readonly decodeMs: number;
  /** Bytes the prefix cache holds now. */
  readonly cacheBytes: number;
}

export interface Generator {
  generate(options: GenerateTokensOptions): Promise<GeneratedRow[]>;
  /** Counters since creation. */
  stats(): GeneratorStats;
}

export interface GeneratorOptions {
  readonly config: ModelConfig;
  /** Holds the weights as persistent feeds. */
  readonly runner: GraphRunner;
  /** Adds adapter inputs (LoRA) to the inference graphs. */
  readonly graphOptions?: Pick<InferenceGraphOptions, 'lora'>;
  /** Key prefix of this model's sessions in the runner. */
  readonly keyPrefix?: string;
  /**
   * Keep rows' keys/values between calls and prefill only what a prompt adds to a saved sequence
   * (default: no cache). Needs a runner with `saveKv`/`restoreKv`/`dropKv`.
   */
  readonly prefixCache?: PrefixCacheOptions;
  /**
   * Rows one prefill and decode run holds at most (default `MAX_GENERATE_ROWS`, 64); larger calls run
   * in chunks of this many rows. Bounds the peak memory of a large evaluation.
   */
  readonly maxRows?: number;
  /**
   * Run only the rows that need it, at the length they need (default true): decode steps drop finished
   * rows once the rest fit in half the batch, and an extension of cached prefixes runs short and long
   * new parts in separate runs when that saves positions. The same tokens and log-probs either way.
   */
  readonly compactRuns?: boolean;
  /**
   * Report each token's log-prob under softmax(logits / this), whatever temperature sampled it (default
   * 1): the distribution a learner with the same `logprobTemperature` scores and trains.
   */
  readonly logprobTemperature?: number;
}

/**
 * Below this many FLOPs a run is faster on one onnxruntime thread: measured on 2 cores, decode at d_model
 * 128 (1.2 M parameters) gave 2.2k / 5.8k / 11.3k tokens/s at batch 1 / 4 / 16 on one thread against
 * 1.7k / 3.5k / 7.3k on two, and about the same at batch 64 (1.5·10^8 FLOPs per step).
 */
export const SMALL_RUN_FLOPS = 1e8;

/**
 * Samples the next token of every unfinished row of the batch from its slice of `logprobs` [B, vocab]
 * (batch row b is the call's row `batch[b]`) and ends rows at EOS, at a stop, or at their limit.
 */
function takeTokens(
  rows: readonly RowState[],
  batch: readonly number[],
  logprobs: Float32Array,
  vocab: number,
  o: GenerateTokensOptions,
  eos: ReadonlySet<number>,
  logprobTemperature: number,
): void {
  batch.forEach((i, b) => {
    const row = rows[i];
    if (row === undefined || row.finish !== null) return;
    const lp = logprobs.subarray(b * vocab, (b + 1) * vocab);
    const tok = sampleToken(lp, o.sampling, row.rng);
    row.tokens.push(tok);
    row.logprobs.push(logprobTemperature === 1 ? at(lp, tok) : logprobAt(lp, tok, logprobTemperature));
    row.next = tok;
    if (eos.has(tok)) row.finish = 'eos';
    else if (o.shouldStop?.(i, row.tokens)) row.finish = 'stop';
    else if (row.tokens.length >= row.limit) row.finish = 'length';
  });
}

/**
 * The rows the next decode step runs: all of the current batch while more than half of it is
 * unfinished, else the unfinished ones in a batch of the next power of two (a call mixing 7-token moves
 * and 90-token notes otherwise decodes every finished move for 80 more steps). A row's numbers do not
 * depend on its batch, so this changes no token (tested).
 */
function decodeBatch(rows: readonly RowState[], current: number[]): number[] {
  const active = current.filter((i) => rows[i]?.finish === null);
  return runRows(active.length, Number.POSITIVE_INFINITY) < nextPow2(current.length) ? active : current;
}

/**
 * One decode step over the call's rows `batch`: feeds each unfinished row's last token at its position,
 * scatters the new keys/values into its row of the KV buffer there, and returns the next-token log-probs
 * [nextPow2(batch), vocab]. A batch smaller than the buffer's B rows gathers its rows of the buffer
 * inside the graph.
 */
async function decodeStep(
  ctx: GenerateContext,
  rows: readonly RowState[],
  batch: readonly number[],
  { B: bufferRows, S }: GenerateShape,
): Promise<Float32Array> {
  const B = runRows(batch.length, bufferRows);
  const gathered = B < bufferRows;
  const key = gathered ? `${ctx.prefix}:decode:${B}of${bufferRows}x${S}` : `${ctx.prefix}:decode:${B}x${S}`;
  await ctx.runner.load(
    key,
    () =>
      serializeGraph(
        buildDecodeGraph({
          config: ctx.config,
          batch: B,
          capacity: S,
          ...(gathered ? { bufferRows } : {}),
          ...ctx.graphOptions,
        }),
      ),
    ctx.sessionOptions(B, 1, S + 1),
  );
  const inputIds = new BigInt64Array(B);
  const positions = new BigInt64Array(B);
  const bufferRow = new BigInt64Array(B);
  const mask = new Float32Array(B * (S + 1)).fill(MASK_NEG);
  const starts: number[] = [];
  const targets: number[] = [];
  for (let b = 0; b < B; b++) {
    const i = batch[b] ?? 0;
    const row = b < batch.length ? rows[i] : undefined;
    const active = row !== undefined && row.finish === null;
    const p = active ? row.pos : 0;
    inputIds[b] = BigInt(active ? row.next : 0);
    positions[b] = BigInt(p);
    bufferRow[b] = BigInt(i);
    mask.fill(0, b * (S + 1), b * (S + 1) + p);
    mask[b * (S + 1) + S] = 0;
    starts.push(active ? p : -1);
    targets.push(i);
  }
  const feeds: Record<string, TensorValue> = {
    input_ids: { data: inputIds, dims: [B, 1] },
    positions: { data: positions, dims: [B, 1] },
    mask: { data: mask, dims: [B, 1, 1, 1, S + 1] },
    ...(gathered ? { rows: { data: bufferRow, dims: [B] } } : {}),
  };
  const out = await ctx.runner.run(key, feeds, {
    fetches: ['logprobs'],
    scatter: kvScatter(ctx.config, 'new', starts, gathered ? targets : undefined),
  });
  for (const i of batch) {
    const row = rows[i];
    if (row !== undefined && row.finish === null) row.pos++;
  }
  return outputData(out, 'logprobs', Float32Array);
}

/** The first token's log-probs of every row: a plain prefill, or one over cached prefixes. */
async function prefillRows(
  ctx: GenerateContext,
  prompts: readonly (readonly number[])[],
  shape: GenerateShape,
): Promise<{ first: Float32Array; matches: (PrefixMatch | undefined)[] }> {
  const { cache, stats } = ctx;
  const matches = cache === undefined ? [] : await matchPrefixes(cache, prompts);
  const hit = cache !== undefined && matches.some((m) => m !== undefined);
  const first = hit
    ? await prefillCached(ctx, cache, prompts, matches, shape)
    : await prefill(ctx, prompts, shape);
  for (const [i, p] of prompts.entries()) {
    stats.promptTokens += p.length;
    stats.reusedTokens += matches[i]?.length ?? 0;
  }
  return { first, matches };
}

/** One generate call whose request `checkRequest` accepted: prefill, then decode steps until every row has finished. */
async function generateRows(
  ctx: GenerateContext,
  o: GenerateTokensOptions,
  limits: readonly number[],
): Promise<GeneratedRow[]> {
  if (o.prompts.length === 0) return [];
  const { stats } = ctx;
  stats.calls++;
  const shape = planShape(ctx.config, o.prompts, limits);
  let t0 = performance.now();
  const { first, matches } = await prefillRows(ctx, o.prompts, shape);
  stats.prefillMs += performance.now() - t0;
  const rows: RowState[] = zip(o.prompts, zip(o.seeds, limits)).map(([p, [seed, limit]]) => ({
    limit,
    rng: createRng(seed),
    tokens: [],
    logprobs: [],
    finish: limit <= 0 ? 'length' : null,
    pos: p.length,
    next: 0,
  }));
  const eos = new Set(o.eosTokenIds ?? []);
  const V = ctx.config.vocabSize;
  let batch = [...Array(shape.B).keys()];
  takeTokens(rows, batch, first, V, o, eos, ctx.logprobTemperature);
  t0 = performance.now();
  while (rows.some((r) => r.finish === null)) {
    throwIfAborted(o.signal);
    stats.decodeTokens += rows.filter((r) => r.finish === null).length;
    if (ctx.compactRuns) batch = decodeBatch(rows, batch);
    takeTokens(rows, batch, await decodeStep(ctx, rows, batch, shape), V, o, eos, ctx.logprobTemperature);
  }
  stats.decodeMs += performance.now() - t0;
  if (ctx.cache !== undefined) await saveRows(ctx.cache, ctx.config, o.prompts, rows, matches);
  return rows.map((r) => ({ tokens: r.tokens, logprobs: r.logprobs, finishReason: r.finish ?? 'length' }));
}

/**
 * Rows one prefill and decode run holds at most, unless `GeneratorOptions.maxRows` says otherwise.
 * Activations and the KV buffer grow with the rows (a 1024-row evaluation of Kuhn Poker needed 15 GB;
 * the laptop preset's 128-row Tic-Tac-Toe evaluation peaked at 2.54 GB in one run and at 2.17 GB in
 * chunks of 64, no slower), so larger calls run in chunks of this many rows, one after another; each
 * row's tokens depend only on its prompt, seed and limit.
 */
export const MAX_GENERATE_ROWS = 64;

/** The rows `[start, start + count)` of a call, as a call of their own. */
function chunkOf(o: GenerateTokensOptions, start: number, count: number): GenerateTokensOptions {
  const end = start + count;
  const { shouldStop } = o;
  return {
    ...o,
    prompts: o.prompts.slice(start, end),
    seeds: o.seeds.slice(start, end),
    maxTokens: typeof o.maxTokens === 'number' ? o.maxTokens : o.maxTokens.slice(start, end),
    ...(shouldStop
      ? { shouldStop: (row: number, tokens: readonly number[]) => shouldStop(start + row, tokens) }
      : {}),
  };
}

/** Checks the request once, then runs `generateRows` over chunks of at most `ctx.maxRows` rows. */
async function generateChunked(ctx: GenerateContext, o: GenerateTokensOptions): Promise<GeneratedRow[]> {
  const limits = checkRequest(ctx.config, o);
  const chunk = ctx.maxRows;
  if (o.prompts.length <= chunk) return generateRows(ctx, o, limits);
  const out: GeneratedRow[] = [];
  for (let start = 0; start < o.prompts.length; start += chunk) {
    const count = Math.min(chunk, o.prompts.length - start);
    out.push(...(await generateRows(ctx, chunkOf(o, start, count), limits.slice(start, start + count))));
  }
  return out;
}

/** The prefix cache of `options`, when it is enabled and the runner can save keys/values. */
function prefixCacheOf(options: GeneratorOptions): PrefixCacheState | undefined {
  const o = options.prefixCache;
  const { runner, config: c } = options;
  if (o === undefined || o.maxBytes <= 0) return undefined;
  if (runner.saveKv === undefined || runner.restoreKv === undefined || runner.dropKv === undefined)
    return undefined;
  return {
    index: createPrefixIndex({
      maxBytes: o.maxBytes,
      bytesPerToken: c.numLayers * 2 * c.numKvHeads * c.headDim * 4,
      ...(o.minTokens === undefined ? {} : { minTokens: o.minTokens }),
      idPrefix: `${options.keyPrefix ?? 'model'}:kv:`,
    }),
    weightsVersion: o.weightsVersion,
    version: o.weightsVersion?.(),
    save: runner.saveKv.bind(runner),
    restore: runner.restoreKv.bind(runner),
    drop: runner.dropKv.bind(runner),
  };
}

/** A generator over `runner`, whose persistent tensors hold the model's weights. */
export function createGenerator(options: GeneratorOptions): Generator {
  const maxRows = options.maxRows ?? MAX_GENERATE_ROWS;
  if (!Number.isInteger(maxRows) || maxRows < 1) {
    throw new InvalidArgumentError(`createGenerator(): maxRows must be a positive integer, got ${maxRows}.`);
  }
  // Runs of fewer than SMALL_RUN_FLOPS model FLOPs (2 · tokens · parameters) take one thread.
  const flopsPerToken = 2 * countParams(options.config);
  const ctx: GenerateContext = {
    config: options.config,
    runner: options.runner,
    prefix: options.keyPrefix ?? 'model',
    graphOptions: options.graphOptions ?? {},
    // No memory arena: every session would keep its largest run's memory (`ARENA_MIN_POSITIONS`).
    sessionOptions: (rows, tokens, keys) => ({
      ...(rows * tokens * flopsPerToken < SMALL_RUN_FLOPS ? { threads: 1 } : {}),
      memArena: false,
      bytes: estimateSessionBytes(options.config, {
        kind: 'forward',
        rows,
        tokens,
        keys,
        past: keys > tokens,
        // Prefill, extensions and decode steps run the head at each row's last token only.
        logitsRows: rows,
      }),
    }),
    cache: prefixCacheOf(options),
    maxRows,
    compactRuns: options.compactRuns ?? true,
    logprobTemperature: options.logprobTemperature ?? 1,
    stats: {
      calls: 0,
      promptTokens: 0,
      reusedTokens: 0,
      prefillMs: 0,
      decodeTokens: 0,
      decodeMs: 0,
      cacheBytes: 0,
    },
  };
  // Calls are serialised: they share the runner's KV buffers.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    generate(o) {
      const result = queue.then(() => generateChunked(ctx, o));
      queue = result.catch(() => undefined);
      return result;
    },
    stats: () => ({ ...ctx.stats, cacheBytes: ctx.cache?.index.bytes ?? 0 }),
  };
}
