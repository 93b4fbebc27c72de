/**
 * Batched generation: prefill of right-padded prompts, then one decode step per token with a static
 * KV buffer held in JS next to the sessions (the runner scatters each step's new keys/values into it).
 * Rows carry their own seeds, so a row's tokens do not depend on its batch. Calls are serialised:
 * the KV buffers are shared by all calls of one runner. With a prefix cache, every row's keys/values
 * are saved in the runner after the call, and a later prompt that starts with a saved sequence (the
 * next turn of the same transcript) restores them and prefills only its new tokens.
 */

import { at, createRng, InvalidArgumentError, type Rng, throwIfAborted } from '@mage-rl/core';
import { serializeGraph } from '../graph/serialize';
import type { ModelConfig } from '../model/config';
import { estimateSessionBytes } from '../model/memory-estimate';
import { countParams } from '../model/params';
import { MASK_NEG } from '../model/transformer';
import type { GraphRunner, LoadOptions } from '../runtime/runner';
import { outputData, type TensorValue } from '../runtime/session';
import { zip } from '../util/arrays';
import { buildDecodeGraph, buildPrefillGraph, decodeTableRows, type InferenceGraphOptions } from './graphs';
import {
  createPrefixIndex,
  type PrefixCacheOptions,
  type PrefixIndex,
  type PrefixMatch,
} from './prefix-cache';
import { type SamplingParams, sampleToken } from './sample';

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
  /** Model log-prob (temperature 1, no truncation) of each sampled token. */
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
}

export const nextPow2 = (n: number, min = 1): number => {
  let p = min;
  while (p < n) p *= 2;
  return p;
};

/**
 * A static-shape bucket for `n` positions: the next power of two from `min`, or ¾ of it when that still
 * holds `n` and stays a multiple of `min` (16 → 16, 32, 48, 64, 96, 128, 192 …), at most `max`. Halves
 * the worst-case padding of plain powers of two for one more graph per octave.
 */
export const bucketLength = (n: number, min: number, max: number): number => {
  const p = nextPow2(n, min);
  const q = (3 * p) / 4;
  return Math.min(n <= q && q % min === 0 ? q : p, max);
};

/**
 * Below this many FLOPs a run is faster on one onnxruntime thread: measured on 2 cores, decode at d_model
 * 128 (1.2 M parameters) gave 2.2k / 5.8k / 11.3k tokens/s at batch 1 / 4 / 16 on one thread against
 * 1.7k / 3.5k / 7.3k on two, and about the same at batch 64 (1.5·10^8 FLOPs per step).
 */
export const SMALL_RUN_FLOPS = 1e8;

/** What the phases of a generate call share: the model, where it runs, and its sessions' names. */
interface GenerateContext {
  readonly config: ModelConfig;
  readonly runner: GraphRunner;
  /** Key prefix of this model's sessions. */
  readonly prefix: string;
  readonly graphOptions: Pick<InferenceGraphOptions, 'lora'>;
  /** Session options of a run of `rows` × `tokens` new positions attending to `keys` positions. */
  readonly sessionOptions: (rows: number, tokens: number, keys: number) => LoadOptions;
  readonly cache: PrefixCacheState | undefined;
  /** Rows of one run at most (`GeneratorOptions.maxRows`). */
  readonly maxRows: number;
  readonly compactRuns: boolean;
  readonly stats: MutableStats;
}

type MutableStats = { -readonly [K in keyof GeneratorStats]: GeneratorStats[K] };

/** The prefix cache of a generator: its index and the weights version its saved keys/values belong to. */
interface PrefixCacheState {
  readonly index: PrefixIndex;
  readonly weightsVersion: (() => number) | undefined;
  version: number | undefined;
  readonly save: NonNullable<GraphRunner['saveKv']>;
  readonly restore: NonNullable<GraphRunner['restoreKv']>;
  readonly drop: NonNullable<GraphRunner['dropKv']>;
}

/** The static shapes of a call: B rows (a power of two), T prompt positions, KV capacity S. */
interface GenerateShape {
  readonly B: number;
  readonly T: number;
  readonly S: number;
}

/** A row being generated. */
interface RowState {
  readonly limit: number;
  readonly rng: Rng;
  readonly tokens: number[];
  readonly logprobs: number[];
  finish: GeneratedRow['finishReason'] | null;
  /** Position of the token fed to the next decode step. */
  pos: number;
  /** The token fed to the next decode step (the last one sampled). */
  next: number;
}

/** Checks prompts and limits against the model; returns each row's token limit. */
function checkRequest(c: ModelConfig, o: GenerateTokensOptions): number[] {
  if (o.seeds.length !== o.prompts.length)
    throw new InvalidArgumentError('generate(): one seed per prompt is needed.');
  const limits = o.prompts.map((_, i) =>
    typeof o.maxTokens === 'number' ? o.maxTokens : (o.maxTokens[i] ?? 0),
  );
  for (const p of o.prompts) {
    if (p.length === 0) throw new InvalidArgumentError('generate(): a prompt needs at least one token.');
    for (const t of p) {
      if (!Number.isInteger(t) || t < 0 || t >= c.vocabSize) {
        throw new InvalidArgumentError(
          `generate(): token id ${t} is outside the vocabulary of ${c.vocabSize}.`,
        );
      }
    }
  }
  return limits;
}

/** The buckets of a call: prompts padded to T, a KV buffer that holds every prompt and its limit. */
function planShape(
  c: ModelConfig,
  prompts: readonly (readonly number[])[],
  limits: readonly number[],
): GenerateShape {
  const maxPrompt = Math.max(...prompts.map((p) => p.length));
  const need = Math.max(...zip(prompts, limits).map(([p, limit]) => p.length + limit));
  if (need > c.maxPositions) {
    throw new InvalidArgumentError(
      `generate(): prompt + maxTokens (${need}) exceeds maxPositions ${c.maxPositions}.`,
    );
  }
  return {
    B: nextPow2(prompts.length),
    T: bucketLength(maxPrompt, 16, c.maxPositions),
    S: bucketLength(need, 32, c.maxPositions),
  };
}

/**
 * Scatters of a run's per-layer keys/values (`<from>.<layer>.key|value`) into the KV buffer at `starts`,
 * output row b into buffer row `rows[b]` (default b).
 */
const kvScatter = (c: ModelConfig, from: string, starts: readonly number[], rows?: readonly number[]) =>
  [...Array(c.numLayers).keys()].flatMap((l) => [
    { output: `${from}.${l}.key`, target: `past.${l}.key`, starts, ...(rows ? { rows } : {}) },
    { output: `${from}.${l}.value`, target: `past.${l}.value`, starts, ...(rows ? { rows } : {}) },
  ]);

/**
 * Runs the right-padded prompts, fills a fresh KV buffer (per layer [B, KV, S, hd]) with their
 * keys/values and returns the next-token log-probs of every row [B, vocab].
 */
async function prefill(
  ctx: GenerateContext,
  prompts: readonly (readonly number[])[],
  { B, T, S }: GenerateShape,
): Promise<Float32Array> {
  const { config: c, runner } = ctx;
  const key = `${ctx.prefix}:prefill:${B}x${T}`;
  await runner.load(
    key,
    () => serializeGraph(buildPrefillGraph({ config: c, batch: B, seqLen: T, ...ctx.graphOptions })),
    ctx.sessionOptions(B, T, T),
  );
  const ids = new BigInt64Array(B * T);
  const last = new BigInt64Array(B);
  for (let b = 0; b < B; b++) {
    const p = prompts[b] ?? [0];
    ids.set(
      p.map((t) => BigInt(t)),
      b * T,
    );
    last[b] = BigInt(b * T + p.length - 1);
  }
  for (let l = 0; l < c.numLayers; l++) {
    await runner.allocate(`past.${l}.key`, [B, c.numKvHeads, S, c.headDim]);
    await runner.allocate(`past.${l}.value`, [B, c.numKvHeads, S, c.headDim]);
  }
  const out = await runner.run(
    key,
    { input_ids: { data: ids, dims: [B, T] }, last_index: { data: last, dims: [B] } },
    { fetches: ['logprobs'], scatter: kvScatter(c, 'present', new Array<number>(B).fill(0)) },
  );
  return outputData(out, 'logprobs', Float32Array);
}

/** The persistent KV buffers of every layer. */
const kvNames = (c: ModelConfig): string[] =>
  [...Array(c.numLayers).keys()].flatMap((l) => [`past.${l}.key`, `past.${l}.value`]);

/** Inputs of a run of the new part of each prompt after its cached prefix of `cached[b]` positions. */
function extendFeeds(
  c: ModelConfig,
  prompts: readonly (readonly number[] | undefined)[],
  cached: readonly number[],
  { B, T, S }: GenerateShape,
): Record<string, TensorValue> {
  const ids = new BigInt64Array(B * T);
  const positions = new BigInt64Array(B * T);
  const last = new BigInt64Array(B);
  const maxPosition = decodeTableRows(c, S, T) - 1;
  // Row b, new token t: the cached positions [0, cached[b]) and the new tokens up to t are visible.
  const mask = new Float32Array(B * T * (S + T)).fill(MASK_NEG);
  for (let b = 0; b < B; b++) {
    const p = prompts[b] ?? [0];
    const start = cached[b] ?? 0;
    for (let t = 0; t < T; t++) {
      ids[b * T + t] = BigInt(p[start + t] ?? 0);
      positions[b * T + t] = BigInt(Math.min(start + t, maxPosition));
      const row = (b * T + t) * (S + T);
      mask.fill(0, row, row + start);
      mask.fill(0, row + S, row + S + t + 1);
    }
    last[b] = BigInt(b * T + p.length - start - 1);
  }
  return {
    input_ids: { data: ids, dims: [B, T] },
    positions: { data: positions, dims: [B, T] },
    mask: { data: mask, dims: [B, 1, 1, T, S + T] },
    last_index: { data: last, dims: [B] },
  };
}

/**
 * Positions a run costs beyond its rows × length: splitting an extension in two runs must save more
 * than this (a run's fixed costs, and once per bucket a session to compile).
 */
const RUN_OVERHEAD_POSITIONS = 512;

/**
 * The runs of an extension whose rows need `fresh[b]` new positions: all rows in one run padded to the
 * longest, or (when it saves more than a run's overhead in padded positions) the shorter rows in one
 * run and the longer ones in another. E.g. 50 moves of ~30 new tokens and 13 new attempts of ~120: one
 * run of 64 × 128 positions, or 64 × 32 and 16 × 128.
 */
function extensionGroups(fresh: readonly number[], maxPositions: number): number[][] {
  const order = [...fresh.keys()].sort((a, b) => (fresh[a] ?? 0) - (fresh[b] ?? 0) || a - b);
  const length = (k: number) => bucketLength(fresh[order[k] ?? 0] ?? 1, 16, maxPositions);
  const n = order.length;
  let best = { cost: nextPow2(n) * length(n - 1), split: n };
  for (let k = 1; k < n; k++) {
    if (length(k - 1) === length(k)) continue;
    const rows = (m: number) => runRows(m, Number.POSITIVE_INFINITY);
    const cost = rows(k) * length(k - 1) + rows(n - k) * length(n - 1) + RUN_OVERHEAD_POSITIONS;
    if (cost < best.cost) best = { cost, split: k };
  }
  const sorted = (rows: number[]) => rows.sort((a, b) => a - b);
  return best.split === n
    ? [sorted(order)]
    : [sorted(order.slice(0, best.split)), sorted(order.slice(best.split))];
}

/**
 * Prefill with a prefix cache: restores each matched row's cached keys/values into a fresh KV buffer,
 * runs only the prompts' remaining tokens (padded to a bucket of T) over it, scatters their keys/values
 * after the cached ones, and returns the next-token log-probs of every row [B, vocab]. Rows whose new
 * parts differ much in length run in two groups (`extensionGroups`), each gathering its rows of the
 * buffer inside the graph.
 */
async function prefillCached(
  ctx: GenerateContext,
  cache: PrefixCacheState,
  prompts: readonly (readonly number[])[],
  matches: readonly (PrefixMatch | undefined)[],
  { B, S }: GenerateShape,
): Promise<Float32Array> {
  const { config: c, runner } = ctx;
  const cached = prompts.map((_, b) => matches[b]?.length ?? 0);
  const fresh = prompts.map((p, b) => p.length - (cached[b] ?? 0));
  const names = kvNames(c);
  for (const name of names) await runner.allocate(name, [B, c.numKvHeads, S, c.headDim]);
  const restore = matches.flatMap((m, row) => (m === undefined ? [] : [{ id: m.id, row, length: m.length }]));
  await cache.restore(restore, names);
  const groups = ctx.compactRuns ? extensionGroups(fresh, c.maxPositions) : [[...prompts.keys()]];
  if (groups.length === 1)
    return (await extendRun(ctx, prompts, cached, [...Array(B).keys()], { B, S })).logprobs;
  const V = c.vocabSize;
  const first = new Float32Array(B * V);
  for (const group of groups) {
    const { logprobs, slots } = await extendRun(ctx, prompts, cached, group, { B, S });
    slots.forEach((row, g) => {
      if (group.includes(row)) first.set(logprobs.subarray(g * V, (g + 1) * V), row * V);
    });
  }
  return first;
}

/**
 * One extension run over the call's rows `group`: their new tokens padded to a bucket of T. A group that
 * fits in fewer rows than the buffer's B gathers its rows from the buffer (feed row g is call row
 * `group[g]`); otherwise feed row b is buffer row b, the rows outside the group running as padding.
 * Returns the next-token log-probs of the feed rows [rows, vocab] and the call row of each feed row.
 */
async function extendRun(
  ctx: GenerateContext,
  prompts: readonly (readonly number[])[],
  cached: readonly number[],
  group: readonly number[],
  { B: bufferRows, S }: Pick<GenerateShape, 'B' | 'S'>,
): Promise<{ logprobs: Float32Array; slots: readonly number[] }> {
  const { config: c, runner } = ctx;
  const B = runRows(group.length, bufferRows);
  const gathered = B < bufferRows;
  const longest = Math.max(...group.map((b) => (prompts[b]?.length ?? 1) - (cached[b] ?? 0)));
  const T = bucketLength(longest, 16, c.maxPositions);
  const key = gathered
    ? `${ctx.prefix}:extend:${B}of${bufferRows}x${T}x${S}`
    : `${ctx.prefix}:extend:${B}x${T}x${S}`;
  await runner.load(
    key,
    () =>
      serializeGraph(
        buildDecodeGraph({
          config: c,
          batch: B,
          capacity: S,
          seqLen: T,
          ...(gathered ? { bufferRows } : {}),
          ...ctx.graphOptions,
        }),
      ),
    ctx.sessionOptions(B, T, S + T),
  );
  const members = new Set(group);
  const slots = gathered ? group : [...Array(B).keys()];
  const rowPrompts = slots.map((b) => (members.has(b) ? prompts[b] : undefined));
  const rowCached = slots.map((b) => (members.has(b) ? (cached[b] ?? 0) : 0));
  const feeds = extendFeeds(c, rowPrompts, rowCached, { B, T, S });
  const starts = [...Array(B).keys()].map((g) => (rowPrompts[g] === undefined ? -1 : (rowCached[g] ?? 0)));
  const rows = [...Array(B).keys()].map((g) => slots[g] ?? 0);
  const out = await runner.run(
    key,
    gathered ? { ...feeds, rows: { data: BigInt64Array.from(rows, BigInt), dims: [B] } } : feeds,
    { fetches: ['logprobs'], scatter: kvScatter(c, 'new', starts, gathered ? rows : undefined) },
  );
  return { logprobs: outputData(out, 'logprobs', Float32Array), slots };
}

/**
 * Matches every prompt against the saved sequences, after dropping them all when the weights changed.
 */
async function matchPrefixes(
  cache: PrefixCacheState,
  prompts: readonly (readonly number[])[],
): Promise<(PrefixMatch | undefined)[]> {
  const version = cache.weightsVersion?.();
  if (version !== cache.version) {
    await cache.drop(cache.index.clear());
    cache.version = version;
  }
  return prompts.map((p) => cache.index.match(p));
}

/**
 * Saves every row's keys/values (its prompt and the sampled tokens fed back, i.e. all but the last) in
 * the runner, dropping the saved sequences these rows extended whole and, past the budget, the least
 * recently used ones.
 */
async function saveRows(
  cache: PrefixCacheState,
  c: ModelConfig,
  prompts: readonly (readonly number[])[],
  rows: readonly RowState[],
  matches: readonly (PrefixMatch | undefined)[],
): Promise<void> {
  const sequences = zip(prompts, rows).map(([p, r]) => [...p, ...r.tokens.slice(0, r.pos - p.length)]);
  const superseded = matches.flatMap((m) => (m?.whole === true ? [m.id] : []));
  const { ids, dropped } = cache.index.add(sequences, superseded);
  if (dropped.length > 0) await cache.drop(dropped);
  const entries = ids.flatMap((id, row) =>
    id === undefined ? [] : [{ id, row, length: sequences[row]?.length ?? 0 }],
  );
  if (entries.length > 0) await cache.save(entries, kvNames(c));
}

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
): void {
  batch.forEach((i, b) => {
    const row = rows[i];
    if (row === undefined || row.finish !== null) return;
    const lp = logprobs.subarray(b * vocab, (b + 1) * vocab);
    const tok = sampleToken(lp, o.sampling, row.rng);
    row.tokens.push(tok);
    row.logprobs.push(at(lp, tok));
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
 * Rows of a run over `n` of a buffer's `bufferRows` rows: the next power of two, at least 2 — with one
 * row onnxruntime's matrix products take another kernel (a matrix-vector product) whose sums are
 * ordered differently, so a row alone would not get the numbers it gets in a batch.
 */
const runRows = (n: number, bufferRows: number): number => Math.min(bufferRows, nextPow2(n, 2));

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
  takeTokens(rows, batch, first, V, o, eos);
  t0 = performance.now();
  while (rows.some((r) => r.finish === null)) {
    throwIfAborted(o.signal);
    stats.decodeTokens += rows.filter((r) => r.finish === null).length;
    if (ctx.compactRuns) batch = decodeBatch(rows, batch);
    takeTokens(rows, batch, await decodeStep(ctx, rows, batch, shape), V, o, eos);
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
    sessionOptions: (rows, tokens, keys) => ({
      ...(rows * tokens * flopsPerToken < SMALL_RUN_FLOPS ? { threads: 1 } : {}),
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
