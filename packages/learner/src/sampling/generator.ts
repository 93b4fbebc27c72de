/**
 * Batched generation: prefill of right-padded prompts, then one decode step per token with a static
 * KV buffer held in JS next to the sessions (the runner scatters each step's new keys/values into it).
 * Rows carry their own seeds, so a row's result does not depend on its batch. Calls are serialised:
 * the KV buffers are shared by all calls of one runner.
 */

import { createRng, InvalidArgumentError, type Rng, throwIfAborted } from '@mage-rl/core';
import { serializeGraph } from '../graph/serialize';
import type { ModelConfig } from '../model/config';
import { countParams } from '../model/params';
import { MASK_NEG } from '../model/transformer';
import type { GraphRunner, LoadOptions } from '../runtime/runner';
import type { TensorValue } from '../runtime/session';
import { buildDecodeGraph, buildPrefillGraph, type InferenceGraphOptions } from './graphs';
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

export interface Generator {
  generate(options: GenerateTokensOptions): Promise<GeneratedRow[]>;
}

export interface GeneratorOptions {
  readonly config: ModelConfig;
  /** Holds the weights as persistent feeds. */
  readonly runner: GraphRunner;
  /** Adds adapter inputs (LoRA) to the inference graphs. */
  readonly graphOptions?: Pick<InferenceGraphOptions, 'lora'>;
  /** Key prefix of this model's sessions in the runner. */
  readonly keyPrefix?: string;
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

export function createGenerator(options: GeneratorOptions): Generator {
  const { config: c, runner } = options;
  const prefix = options.keyPrefix ?? 'model';
  const extra = options.graphOptions ?? {};

  // Runs of fewer than SMALL_RUN_FLOPS model FLOPs (2 · tokens · parameters) take one thread.
  const flopsPerToken = 2 * countParams(c);
  const sessionOptions = (tokens: number): LoadOptions =>
    tokens * flopsPerToken < SMALL_RUN_FLOPS ? { threads: 1 } : {};

  let queue: Promise<unknown> = Promise.resolve();
  const generate = async (o: GenerateTokensOptions): Promise<GeneratedRow[]> => {
    const n = o.prompts.length;
    if (o.seeds.length !== n) throw new InvalidArgumentError('generate(): one seed per prompt is needed.');
    if (n === 0) return [];
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
    const maxPrompt = Math.max(...o.prompts.map((p) => p.length));
    const need = Math.max(...o.prompts.map((p, i) => p.length + (limits[i] as number)));
    if (need > c.maxPositions) {
      throw new InvalidArgumentError(
        `generate(): prompt + maxTokens (${need}) exceeds maxPositions ${c.maxPositions}.`,
      );
    }
    const B = nextPow2(n);
    const T = bucketLength(maxPrompt, 16, c.maxPositions);
    const S = bucketLength(need, 32, c.maxPositions);
    const KV = c.numKvHeads;
    const hd = c.headDim;
    const V = c.vocabSize;
    const L = c.numLayers;

    const prefillKey = `${prefix}:prefill:${B}x${T}`;
    await runner.load(
      prefillKey,
      () => serializeGraph(buildPrefillGraph({ config: c, batch: B, seqLen: T, ...extra })),
      sessionOptions(B * T),
    );
    const ids = new BigInt64Array(B * T);
    const last = new BigInt64Array(B);
    for (let b = 0; b < B; b++) {
      const p = o.prompts[b] ?? [0];
      for (let t = 0; t < p.length; t++) ids[b * T + t] = BigInt(p[t] as number);
      last[b] = BigInt(b * T + p.length - 1);
    }
    // The static KV buffer lives with the sessions: per layer [B, KV, S, hd], filled by scatters.
    for (let l = 0; l < L; l++) {
      await runner.allocate(`past.${l}.key`, [B, KV, S, hd]);
      await runner.allocate(`past.${l}.value`, [B, KV, S, hd]);
    }
    const kvScatter = (from: string, starts: number[]) =>
      [...Array(L).keys()].flatMap((l) => [
        { output: `${from}.${l}.key`, target: `past.${l}.key`, starts },
        { output: `${from}.${l}.value`, target: `past.${l}.value`, starts },
      ]);
    const pre = await runner.run(
      prefillKey,
      { input_ids: { data: ids, dims: [B, T] }, last_index: { data: last, dims: [B] } },
      { fetches: ['logprobs'], scatter: kvScatter('present', new Array<number>(B).fill(0)) },
    );

    const rngs: Rng[] = o.seeds.map((s) => createRng(s));
    const rows = o.prompts.map(() => ({
      tokens: [] as number[],
      logprobs: [] as number[],
      finish: null as null | GeneratedRow['finishReason'],
    }));
    const pos = o.prompts.map((p) => p.length);
    const eos = new Set(o.eosTokenIds ?? []);
    const take = (lpAll: Float32Array) => {
      for (let b = 0; b < n; b++) {
        const row = rows[b] as (typeof rows)[number];
        if (row.finish !== null) continue;
        const lp = lpAll.subarray(b * V, (b + 1) * V);
        const tok = sampleToken(lp, o.sampling, rngs[b] as Rng);
        row.tokens.push(tok);
        row.logprobs.push(lp[tok] as number);
        if (eos.has(tok)) row.finish = 'eos';
        else if (o.shouldStop?.(b, row.tokens)) row.finish = 'stop';
        else if (row.tokens.length >= (limits[b] as number)) row.finish = 'length';
      }
    };
    for (let b = 0; b < n; b++)
      if ((limits[b] as number) <= 0) (rows[b] as (typeof rows)[number]).finish = 'length';
    take(pre.logprobs?.data as Float32Array);

    const decodeKey = `${prefix}:decode:${B}x${S}`;
    const inputIds = new BigInt64Array(B);
    const positions = new BigInt64Array(B);
    const mask = new Float32Array(B * (S + 1));
    const decodeOptions = sessionOptions(B);
    while (rows.some((r) => r.finish === null)) {
      throwIfAborted(o.signal);
      await runner.load(
        decodeKey,
        () => serializeGraph(buildDecodeGraph({ config: c, batch: B, capacity: S, ...extra })),
        decodeOptions,
      );
      mask.fill(MASK_NEG);
      for (let b = 0; b < B; b++) {
        const row = rows[b];
        const active = row !== undefined && row.finish === null;
        const p = active ? (pos[b] as number) : 0;
        inputIds[b] = BigInt(active ? (row.tokens[row.tokens.length - 1] as number) : 0);
        positions[b] = BigInt(p);
        mask.fill(0, b * (S + 1), b * (S + 1) + p);
        mask[b * (S + 1) + S] = 0;
      }
      const feeds: Record<string, TensorValue> = {
        input_ids: { data: inputIds, dims: [B, 1] },
        positions: { data: positions, dims: [B, 1] },
        mask: { data: mask, dims: [B, 1, 1, 1, S + 1] },
      };
      const starts = Array.from({ length: B }, (_, b) =>
        rows[b]?.finish === null ? (pos[b] as number) : -1,
      );
      const out = await runner.run(decodeKey, feeds, {
        fetches: ['logprobs'],
        scatter: kvScatter('new', starts),
      });
      for (let b = 0; b < n; b++)
        if ((rows[b] as (typeof rows)[number]).finish === null) pos[b] = (pos[b] as number) + 1;
      take(out.logprobs?.data as Float32Array);
    }
    return rows.map((r) => ({
      tokens: r.tokens,
      logprobs: r.logprobs,
      finishReason: r.finish ?? 'length',
    }));
  };
  return {
    generate(o) {
      const result = queue.then(() => generate(o));
      queue = result.catch(() => undefined);
      return result;
    },
  };
}
