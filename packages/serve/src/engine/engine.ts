/**
 * The serving engine: requests' rows wait in a queue and run through the learner's batched generator
 * in batches formed on the fly. While one batch decodes, new rows queue; the next batch takes every
 * waiting row that shares the first one's adapter and sampling settings (up to `maxBatchRows`). Calls to
 * the generator are serialised (they share the runner's KV buffers), so one engine runs one batch at a
 * time. Design: architecture/serve.md.
 */

import { InvalidArgumentError, MageError } from '@mage-rl/core';
import {
  createWorkerRunner,
  type GeneratedRow,
  type GraphRunner,
  paramSpecs,
  type SamplingParams,
  type TokenizerV1,
} from '@mage-rl/learner';
import { type Adapter, createVariants, type Variants } from './adapters';
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
  /**
   * Rows one client (by address) may have waiting or running (default half of `maxQueuedRows`), so
   * one client cannot take the whole queue; beyond it its requests get 429.
   */
  readonly maxRowsPerClient?: number;
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
  /**
   * Generates every row of one request (admitted together or refused with `EngineBusyError`, also when
   * `client` would exceed its share of the queue).
   */
  generate(rows: readonly RowRequest[], client?: string): Promise<RowResult[]>;
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
  /**
   * Hand `model.weights` to the runner instead of copying them (default false;
   * `PersistentOptions.transfer`): the weights are held once, by the runner, and the caller's arrays
   * are detached. For a model nothing else reads afterwards (`mage serve`'s); the engine's `model`
   * then has no weights.
   */
  readonly transferWeights?: boolean;
}

interface Job {
  readonly row: RowRequest;
  readonly client: string;
  readonly adapter: Adapter | null;
  resolve(r: RowResult): void;
  reject(e: unknown): void;
}

const groupKey = (j: Job) => {
  const s = j.row.sampling;
  const sampling = s.temperature <= 0 ? 'greedy' : `${s.temperature}/${s.topK}/${s.topP}`;
  return `${j.adapter?.serial ?? 'base'}/${sampling}`;
};
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Takes the first waiting job and every waiting job of its group (at most `max`) off the queue. */
function takeBatch(queue: Job[], max: number): Job[] {
  const key = groupKey(queue[0] as Job);
  const batch: Job[] = [];
  for (let i = 0; i < queue.length && batch.length < max; ) {
    const j = queue[i] as Job;
    if (groupKey(j) === key) {
      batch.push(j);
      queue.splice(i, 1);
    } else i++;
  }
  return batch;
}

interface MutableStats {
  batches: number;
  rows: number;
  tokens: number;
  maxBatch: number;
}

/** One generator call over `batch` (all of one group); settles every job. */
async function runBatch(
  variants: Variants,
  tokenizer: TokenizerV1,
  batch: Job[],
  stats: MutableStats,
): Promise<void> {
  const first = batch[0] as Job;
  const stopHit: (string | null)[] = batch.map(() => null);
  const cancelled: boolean[] = batch.map(() => false);
  try {
    const generator = await variants.prepare(first.adapter);
    const rows = await generator.generate({
      prompts: batch.map((j) => j.row.prompt),
      seeds: batch.map((j) => j.row.seed),
      maxTokens: batch.map((j) => j.row.maxTokens),
      sampling: first.row.sampling,
      eosTokenIds: tokenizer.eosTokenIds,
      shouldStop: (b, tokens) => {
        const row = (batch[b] as Job).row;
        if (row.onTokens?.(tokens)) {
          cancelled[b] = true;
          return true;
        }
        if (row.stop.length === 0) return false;
        const text = tokenizer.decode(tokens);
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
  }
}

/** Uploads the served weights as the runner's persistent feeds (copies, or the arrays with `transfer`). */
async function uploadWeights(model: ServedModel, runner: GraphRunner, transfer: boolean): Promise<void> {
  const feeds: Record<string, { data: Float32Array; dims: readonly number[] }> = {};
  for (const s of paramSpecs(model.config)) {
    const w = model.weights.get(s.name);
    if (w === undefined) throw new MageError('MODEL_FORMAT', `The served model lacks '${s.name}'.`);
    feeds[s.name] = { data: w, dims: s.shape };
  }
  await runner.setPersistent(feeds, { transfer });
}

/** The queue and its one consumer: batches, the wait before each, and exclusive runner access. */
function createScheduler(limits: EngineLimits, run: (batch: Job[]) => Promise<void>) {
  const queue: Job[] = [];
  let active = 0;
  const perClient = new Map<string, number>();
  const clientShare = limits.maxRowsPerClient ?? Math.ceil(limits.maxQueuedRows / 2);
  const count = (client: string, delta: number) => {
    const n = (perClient.get(client) ?? 0) + delta;
    if (n > 0) perClient.set(client, n);
    else perClient.delete(client);
  };
  let running = false;
  /** Wakes a `gather` waiting for rows. */
  let wake: (() => void) | null = null;
  let expected = 1;
  /** `exclusive` calls waiting: the batch loop yields to them between batches. */
  let waiting = 0;

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
      while (queue.length > 0 && waiting === 0) {
        await gather();
        const batch = takeBatch(queue, limits.maxBatchRows);
        try {
          await run(batch);
        } finally {
          active -= batch.length;
          for (const j of batch) count(j.client, -1);
        }
        expected = batch.length + queue.length;
      }
    } finally {
      running = false;
    }
  };

  let chain: Promise<unknown> = Promise.resolve();
  return {
    /** Queues the jobs of one request (all or none: `EngineBusyError` beyond `maxQueuedRows`). */
    submit(jobs: readonly Job[]): void {
      if (active + jobs.length > limits.maxQueuedRows) {
        throw new EngineBusyError(
          `The server is at its limit of ${limits.maxQueuedRows} waiting rows; retry later.`,
        );
      }
      const client = jobs[0]?.client ?? 'local';
      if ((perClient.get(client) ?? 0) + jobs.length > clientShare) {
        throw new EngineBusyError(
          `This client has its share of ${clientShare} waiting rows; retry when its requests finish.`,
        );
      }
      queue.push(...jobs);
      active += jobs.length;
      count(client, jobs.length);
      wake?.();
      void drain();
    },
    /**
     * Runs `f` between batches (adapter loads and top-k passes share the runner); the batch loop stops
     * after its current batch to let it in, so a busy queue cannot starve it.
     */
    exclusive<T>(f: () => Promise<T>): Promise<T> {
      waiting++;
      const r = chain.then(async () => {
        while (running) await sleep(1);
        running = true;
        waiting--;
        try {
          return await f();
        } finally {
          running = false;
          if (queue.length > 0) void drain();
        }
      });
      chain = r.catch(() => undefined);
      return r;
    },
  };
}

/** An engine over `model`'s weights, uploaded once to its runner. */
export async function createServeEngine(options: CreateEngineOptions): Promise<ServeEngine> {
  const transfer = options.transferWeights ?? false;
  const limits: EngineLimits = { ...DEFAULT_ENGINE_LIMITS, ...options.limits };
  const runner = options.runner ?? createWorkerRunner();
  await uploadWeights(options.model, runner, transfer);
  // Transferred weights are detached here: the engine's model keeps none rather than empty arrays.
  const model: ServedModel = transfer ? { ...options.model, weights: new Map() } : options.model;
  const variants = createVariants(model, runner);
  const stats: MutableStats = { batches: 0, rows: 0, tokens: 0, maxBatch: 0 };
  const scheduler = createScheduler(limits, (batch) => runBatch(variants, model.tokenizer, batch, stats));
  return {
    model,
    limits,
    generate(rows, client = 'local') {
      const results: Promise<RowResult>[] = [];
      try {
        const jobs = rows.map((row): Job => {
          checkRow(model, row);
          const adapter = variants.get(row.adapter);
          const job: {
            row: RowRequest;
            client: string;
            adapter: Adapter | null;
            resolve?: Job['resolve'];
            reject?: Job['reject'];
          } = {
            row,
            client,
            adapter,
          };
          results.push(
            new Promise<RowResult>((resolve, reject) => {
              job.resolve = resolve;
              job.reject = reject;
            }),
          );
          return job as Job;
        });
        scheduler.submit(jobs);
      } catch (e) {
        return Promise.reject(e);
      }
      return Promise.all(results);
    },
    topLogprobs(prompt, response, k, adapterName) {
      return scheduler.exclusive(async () => {
        const a = variants.get(adapterName);
        await variants.prepare(a);
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
    loadAdapter: (name, dir, replace) => scheduler.exclusive(() => variants.load(name, dir, replace)),
    unloadAdapter: (name) => variants.unload(name),
    adapterNames: () => variants.names(),
    stats: () => ({ ...stats }),
    async close() {
      await scheduler.exclusive(async () => undefined);
      if (options.runner === undefined) await runner.dispose();
    },
  };
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
