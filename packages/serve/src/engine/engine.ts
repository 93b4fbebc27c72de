/**
 * The serving engine: requests' rows wait in a queue and run through the learner's batched generator
 * in batches formed on the fly. While one batch decodes, new rows queue; the next batch takes every
 * waiting row that shares the first one's adapter and sampling settings (up to `maxBatchRows`). Calls to
 * the generator are serialised (they share the runner's KV buffers), so one engine runs one batch at a
 * time. Design: architecture/serve.md.
 */

import { InvalidArgumentError, MageError } from '@mage-rl/core';
import {
  createGenerator,
  createWorkerRunner,
  type GeneratedRow,
  type Generator,
  type GraphRunner,
  importPeftAdapter,
  type LoraOptions,
  paramSpecs,
  type SamplingParams,
} from '@mage-rl/learner';
import { type TopLogprob, topLogprobs } from './distributions';
import type { ServedModel } from './served-model';

export interface EngineLimits {
  /** Rows one generator call holds at most (default 64). */
  readonly maxBatchRows: number;
  /** Rows waiting or running at most; a request beyond it is refused (429; default 512). */
  readonly maxQueuedRows: number;
  /**
   * How long the engine waits, before a batch, for as many rows as its last batch had (default 20 ms;
   * it starts at once when they are there).
   */
  readonly batchWaitMs: number;
}

export const DEFAULT_ENGINE_LIMITS: EngineLimits = { maxBatchRows: 64, maxQueuedRows: 512, batchWaitMs: 20 };

/** One sequence to generate. */
export interface RowRequest {
  readonly prompt: readonly number[];
  readonly seed: number | string;
  readonly maxTokens: number;
  readonly sampling: SamplingParams;
  /** A loaded adapter's name, or null for the base model. */
  readonly adapter: string | null;
  /** Generation ends once the decoded text contains one of these. */
  readonly stop: readonly string[];
  /** Called after every token with the row's tokens so far; true cancels the row. */
  readonly onTokens?: (tokens: readonly number[]) => boolean;
}

export interface RowResult extends GeneratedRow {
  /** The stop string that ended the row, if one did. */
  readonly stopString: string | null;
  readonly cancelled: boolean;
}

/** Thrown when the queue is full: the HTTP layer answers 429. */
export class EngineBusyError extends MageError {
  constructor(message: string) {
    super('RUNNER_FAILURE', message);
    this.name = 'EngineBusyError';
  }
}

export interface EngineStats {
  readonly batches: number;
  readonly rows: number;
  readonly tokens: number;
  /** Rows of the largest batch so far. */
  readonly maxBatch: number;
}

export interface ServeEngine {
  readonly model: ServedModel;
  readonly limits: EngineLimits;
  /** Generates every row of one request (admitted together or refused with `EngineBusyError`). */
  generate(rows: readonly RowRequest[]): Promise<RowResult[]>;
  /** The `k` most likely tokens at each response position of `prompt` + `response`. */
  topLogprobs(
    prompt: readonly number[],
    response: readonly number[],
    k: number,
    adapter: string | null,
  ): Promise<TopLogprob[][]>;
  /** Loads a PEFT LoRA adapter under `name` (replacing one of that name when `replace`). */
  loadAdapter(name: string, dir: string, replace: boolean): Promise<void>;
  /** False when no adapter has that name. */
  unloadAdapter(name: string): boolean;
  adapterNames(): string[];
  stats(): EngineStats;
  close(): Promise<void>;
}

export interface CreateEngineOptions {
  readonly model: ServedModel;
  readonly limits?: Partial<EngineLimits>;
  /** Where sessions run (default a worker thread, so HTTP stays responsive while a batch decodes). */
  readonly runner?: GraphRunner;
}

interface Adapter {
  /** Distinguishes an adapter from a later one loaded under the same name. */
  readonly serial: number;
  readonly lora: LoraOptions;
  readonly tensors: ReadonlyMap<string, Float32Array>;
  /** Adapters with the same layout share graphs. */
  readonly layoutKey: string;
}

interface Job {
  readonly row: RowRequest;
  readonly adapter: Adapter | null;
  resolve(r: RowResult): void;
  reject(e: unknown): void;
}

const layoutOf = (l: LoraOptions) =>
  `lora-r${l.rank}-a${l.alpha ?? l.rank}-${[...(l.targets ?? [])].join('+')}`;
const groupKey = (j: Job) => {
  const s = j.row.sampling;
  const sampling = s.temperature <= 0 ? 'greedy' : `${s.temperature}/${s.topK}/${s.topP}`;
  return `${j.adapter?.serial ?? 'base'}/${sampling}`;
};
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** An engine over `model`'s weights, uploaded once to its runner. */
export async function createServeEngine(options: CreateEngineOptions): Promise<ServeEngine> {
  const { model } = options;
  const limits: EngineLimits = { ...DEFAULT_ENGINE_LIMITS, ...options.limits };
  const runner = options.runner ?? createWorkerRunner();
  const feeds: Record<string, { data: Float32Array; dims: readonly number[] }> = {};
  for (const s of paramSpecs(model.config)) {
    const w = model.weights.get(s.name);
    if (w === undefined) throw new MageError('MODEL_FORMAT', `The served model lacks '${s.name}'.`);
    feeds[s.name] = { data: w, dims: s.shape };
  }
  await runner.setPersistent(feeds);
  const adapters = new Map<string, Adapter>();
  const generators = new Map<string, Generator>();
  let uploaded: Adapter | null = null;
  let nextSerial = 0;
  const queue: Job[] = [];
  let active = 0;
  let running = false;
  const stats = { batches: 0, rows: 0, tokens: 0, maxBatch: 0 };

  const generatorOf = (a: Adapter | null): Generator => {
    const key = a === null ? 'base' : a.layoutKey;
    let g = generators.get(key);
    if (g === undefined) {
      g = createGenerator({
        config: model.config,
        runner,
        keyPrefix: `serve:${key}`,
        ...(a === null ? {} : { graphOptions: { lora: a.lora } }),
      });
      generators.set(key, g);
    }
    return g;
  };

  /** Puts `a`'s tensors into the runner unless they are there already. */
  const upload = async (a: Adapter | null): Promise<void> => {
    if (a === null || a === uploaded) return;
    const values: Record<string, { data: Float32Array; dims: readonly number[] }> = {};
    const specs = new Map(paramSpecs(model.config).map((s) => [s.name, s.shape]));
    for (const [name, data] of a.tensors) {
      const base = specs.get(name.replace(/\.lora_[AB]\.weight$/, '.weight'));
      const [out = 0, inp = 0] = base ?? [];
      dimsCheck(base !== undefined, name);
      values[name] = { data, dims: name.includes('.lora_A.') ? [a.lora.rank, inp] : [out, a.lora.rank] };
    }
    await runner.setPersistent(values);
    uploaded = a;
  };

  /** Runs one batch: the first waiting job and every waiting job of its group. Returns its rows. */
  const runBatch = async (): Promise<number> => {
    const first = queue[0] as Job;
    const key = groupKey(first);
    const batch: Job[] = [];
    for (let i = 0; i < queue.length && batch.length < limits.maxBatchRows; ) {
      const j = queue[i] as Job;
      if (groupKey(j) === key) {
        batch.push(j);
        queue.splice(i, 1);
      } else i++;
    }
    const stopHit: (string | null)[] = batch.map(() => null);
    const cancelled: boolean[] = batch.map(() => false);
    try {
      await upload(first.adapter);
      const rows = await generatorOf(first.adapter).generate({
        prompts: batch.map((j) => j.row.prompt),
        seeds: batch.map((j) => j.row.seed),
        maxTokens: batch.map((j) => j.row.maxTokens),
        sampling: first.row.sampling,
        eosTokenIds: model.tokenizer.eosTokenIds,
        shouldStop: (b, tokens) => {
          const row = (batch[b] as Job).row;
          if (row.onTokens?.(tokens)) {
            cancelled[b] = true;
            return true;
          }
          if (row.stop.length === 0) return false;
          const text = model.tokenizer.decode(tokens);
          const hit = row.stop.find((s) => text.includes(s));
          if (hit === undefined) return false;
          stopHit[b] = hit;
          return true;
        },
      });
      stats.batches++;
      stats.rows += batch.length;
      stats.maxBatch = Math.max(stats.maxBatch, batch.length);
      rows.forEach((r, b) => {
        stats.tokens += r.tokens.length;
        (batch[b] as Job).resolve({ ...r, stopString: stopHit[b] ?? null, cancelled: cancelled[b] ?? false });
      });
    } catch (e) {
      for (const j of batch) j.reject(e);
    } finally {
      active -= batch.length;
    }
    return batch.length;
  };

  /** Wakes a `gather` waiting for rows. */
  let wake: (() => void) | null = null;
  let expected = 1;

  /**
   * Waits (at most `batchWaitMs`) until `expected` rows wait: the rows of the batch that just ended plus
   * those that waited during it. The clients a batch just answered usually send their next requests
   * within milliseconds; a batch started without them would leave them to a batch of their own, and
   * two half-size batches would alternate from then on.
   */
  const gather = async (): Promise<void> => {
    const want = Math.min(limits.maxBatchRows, expected);
    const deadline = performance.now() + limits.batchWaitMs;
    while (queue.length < want) {
      const left = deadline - performance.now();
      if (left <= 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  };

  const drain = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      while (queue.length > 0) {
        await gather();
        const rows = await runBatch();
        expected = rows + queue.length;
      }
    } finally {
      running = false;
    }
  };

  let chain: Promise<unknown> = Promise.resolve();
  /** Runs `f` between batches (adapter changes and top-k passes share the runner). */
  const exclusive = <T>(f: () => Promise<T>): Promise<T> => {
    const r = chain.then(async () => {
      while (running) await sleep(1);
      running = true;
      try {
        return await f();
      } finally {
        running = false;
        if (queue.length > 0) void drain();
      }
    });
    chain = r.catch(() => undefined);
    return r;
  };

  return {
    model,
    limits,
    generate(rows) {
      try {
        for (const r of rows) checkRow(model, r);
      } catch (e) {
        return Promise.reject(e);
      }
      if (active + rows.length > limits.maxQueuedRows) {
        return Promise.reject(
          new EngineBusyError(
            `The server is at its limit of ${limits.maxQueuedRows} waiting rows; retry later.`,
          ),
        );
      }
      const adapterOf = (name: string | null): Adapter | null => {
        if (name === null) return null;
        const a = adapters.get(name);
        if (a === undefined) throw new MageError('UNKNOWN_ID', `No adapter '${name}' is loaded.`);
        return a;
      };
      let jobs: Promise<RowResult>[];
      try {
        jobs = rows.map(
          (row) =>
            new Promise<RowResult>((resolve, reject) => {
              queue.push({ row, adapter: adapterOf(row.adapter), resolve, reject });
            }),
        );
      } catch (e) {
        return Promise.reject(e);
      }
      active += rows.length;
      wake?.();
      void drain();
      return Promise.all(jobs);
    },
    topLogprobs(prompt, response, k, adapterName) {
      return exclusive(async () => {
        const a = adapterName === null ? null : (adapters.get(adapterName) ?? null);
        await upload(a);
        return topLogprobs(runner, {
          config: model.config,
          prompt,
          response,
          k,
          layoutKey: a === null ? 'base' : a.layoutKey,
          ...(a === null ? {} : { lora: a.lora }),
        });
      });
    },
    async loadAdapter(name, dir, replace) {
      if (adapters.has(name) && !replace) {
        throw new MageError('INVALID_ARGUMENT', `The LoRA adapter '${name}' has already been loaded.`);
      }
      const peft = await importPeftAdapter(dir, model.config);
      adapters.set(name, {
        serial: nextSerial++,
        lora: peft.lora,
        tensors: peft.adapters,
        layoutKey: layoutOf(peft.lora),
      });
    },
    unloadAdapter: (name) => adapters.delete(name),
    adapterNames: () => [...adapters.keys()],
    stats: () => ({ ...stats }),
    async close() {
      await exclusive(async () => undefined);
      if (options.runner === undefined) await runner.dispose();
    },
  };
}

function dimsCheck(ok: boolean, name: string): void {
  if (!ok) throw new MageError('MODEL_FORMAT', `Adapter tensor '${name}' targets no weight of the model.`);
}

/** Rejects a row the generator would refuse (so one bad row never fails a whole batch). */
function checkRow(model: ServedModel, r: RowRequest): void {
  const c = model.config;
  if (r.prompt.length === 0) throw new InvalidArgumentError('The prompt is empty.');
  for (const t of r.prompt) {
    if (!Number.isInteger(t) || t < 0 || t >= c.vocabSize)
      throw new InvalidArgumentError(`Token id ${t} is outside the vocabulary of ${c.vocabSize}.`);
  }
  if (!Number.isInteger(r.maxTokens) || r.maxTokens < 1)
    throw new InvalidArgumentError('max_tokens must be a positive integer.');
  if (r.prompt.length + r.maxTokens > c.maxPositions) {
    throw new InvalidArgumentError(
      `This model's maximum context length is ${c.maxPositions} tokens; the prompt has ${r.prompt.length} and max_tokens is ${r.maxTokens}.`,
    );
  }
}
