/**
 * The prefill of a generate call: right-padded prompts into a fresh KV buffer, or, with the prefix
 * cache, restored keys/values of saved sequences plus runs of only the new positions; and saving every
 * row's keys/values after the call. Design: architecture/learner.md.
 */

import { serializeGraph } from '../graph/serialize';
import type { ModelConfig } from '../model/config';
import { MASK_NEG } from '../model/transformer';
import { outputData, type TensorValue } from '../runtime/session';
import { zip } from '../util/arrays';
import type { GenerateContext, PrefixCacheState, RowState } from './generate-context';
import { bucketLength, type GenerateShape, nextPow2, runRows } from './generate-shape';
import { buildDecodeGraph, buildPrefillGraph, decodeTableRows } from './graphs';
import type { PrefixMatch } from './prefix-cache';

/**
 * Scatters of a run's per-layer keys/values (`<from>.<layer>.key|value`) into the KV buffer at `starts`,
 * output row b into buffer row `rows[b]` (default b).
 */
export const kvScatter = (
  c: ModelConfig,
  from: string,
  starts: readonly number[],
  rows?: readonly number[],
) =>
  [...Array(c.numLayers).keys()].flatMap((l) => [
    { output: `${from}.${l}.key`, target: `past.${l}.key`, starts, ...(rows ? { rows } : {}) },
    { output: `${from}.${l}.value`, target: `past.${l}.value`, starts, ...(rows ? { rows } : {}) },
  ]);

/**
 * Runs the right-padded prompts, fills a fresh KV buffer (per layer [B, KV, S, hd]) with their
 * keys/values and returns the next-token log-probs of every row [B, vocab].
 */
export async function prefill(
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
export async function prefillCached(
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
export async function matchPrefixes(
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
export async function saveRows(
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
