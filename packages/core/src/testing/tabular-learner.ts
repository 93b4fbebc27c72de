/**
 * A real, tiny `LearnerV1` for tests: a softmax policy over a fixed list of candidate responses per
 * prompt key. Every response is one token (token id = candidate index), so log-probs are exact; the
 * prompt key is carried in `promptTokens` as its UTF-16 code units, so any instance (a reference copy
 * too) can score rows another instance sampled. Training follows the per-token weights of the
 * `TokenLossFn`: the gradient of −Σ w·log p (plus the entropy bonus) through the softmax, clipped to a
 * global norm, then Adam or SGD. Non-finite losses or gradients skip the step; three in a row throw
 * `NumericInstabilityError`.
 */

import { join } from 'node:path';
import { z } from 'zod';
import {
  CheckpointError,
  ConfigError,
  InvalidArgumentError,
  NumericInstabilityError,
  throwIfAborted,
} from '../errors';
import { readJsonFile, writeJsonAtomic } from '../io';
import { createRng } from '../rng';
import type {
  LearnerRowV1,
  LearnerUpdateRequest,
  LearnerUpdateResult,
  LearnerV1,
  PolicyRequestV1,
  PolicyResponseV1,
  PolicyV1,
  SamplingOptions,
} from '../spec';
import { unpackLogprobRows, unpackRows } from '../training/packing';

export interface TabularLearnerOptions {
  /** The responses the policy chooses between (at least 2); token id = index. */
  readonly candidates: readonly string[];
  /** Seeds mini-batch shuffling and requests without their own seed. */
  readonly seed: number | string;
  /** Learning rate. Default 0.1. */
  readonly lr?: number;
  /** Default `adam`. */
  readonly optimizer?: 'adam' | 'sgd';
  /** Global gradient-norm clip. Default 1. */
  readonly maxGradNorm?: number;
  /** Consecutive NaN/Inf steps before `NumericInstabilityError`. Default 3. */
  readonly maxConsecutiveSkips?: number;
  /** The table key of a request. Default: the content of the last message. */
  readonly promptKey?: (request: PolicyRequestV1) => string;
  /** Default `tabular`. */
  readonly id?: string;
}

export interface TabularLearner extends LearnerV1 {
  /** Optimizer steps taken so far. */
  readonly step: number;
  /** Current probabilities of the candidates for a prompt key (uniform for unseen keys). */
  probabilities(key: string): Float64Array;
  /** Keys with trained logits, in first-update order. */
  keys(): string[];
}

interface Entry {
  readonly logits: Float64Array;
  readonly m: Float64Array;
  readonly v: Float64Array;
}

const FILE = 'tabular-learner.json';
const BETA1 = 0.9;
const BETA2 = 0.999;
const EPS = 1e-8;

const optionsSchema = z.object({
  candidates: z.array(z.string(), { error: 'a list of at least 2 strings' }).min(2, {
    error: 'a list of at least 2 strings',
  }),
  lr: z.number({ error: 'a finite number > 0' }).positive({ error: 'a finite number > 0' }),
  optimizer: z.enum(['adam', 'sgd'], { error: "'adam' or 'sgd'" }),
  maxGradNorm: z.number({ error: 'a finite number > 0' }).positive({ error: 'a finite number > 0' }),
  maxConsecutiveSkips: z.int({ error: 'an integer >= 1' }).min(1, { error: 'an integer >= 1' }),
});

const savedSchema = z.object({
  format: z.literal('mage-rl/tabular-learner@1'),
  candidates: z.array(z.string()),
  step: z.int().min(0),
  consecutiveSkips: z.int().min(0),
  entries: z.array(z.tuple([z.string(), z.array(z.number()), z.array(z.number()), z.array(z.number())])),
});

/** Key text → prompt token ids (UTF-16 code units) and back. */
export function encodePromptKey(key: string): number[] {
  const out = new Array<number>(key.length);
  for (let i = 0; i < key.length; i++) out[i] = key.charCodeAt(i);
  return out;
}

export function decodePromptKey(tokens: readonly number[]): string {
  let s = '';
  for (let i = 0; i < tokens.length; i += 4096) s += String.fromCharCode(...tokens.slice(i, i + 4096));
  return s;
}

function logSoftmax(logits: ArrayLike<number>, out: Float64Array): Float64Array {
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < out.length; i++) max = Math.max(max, logits[i] as number);
  let sum = 0;
  for (let i = 0; i < out.length; i++) sum += Math.exp((logits[i] as number) - max);
  const lse = max + Math.log(sum);
  for (let i = 0; i < out.length; i++) out[i] = (logits[i] as number) - lse;
  return out;
}

/** A `LearnerV1` over a table of candidate logits (see the module comment). */
export function createTabularLearner(options: TabularLearnerOptions): TabularLearner {
  const parsed = optionsSchema.safeParse({
    candidates: options.candidates,
    lr: options.lr ?? 0.1,
    optimizer: options.optimizer ?? 'adam',
    maxGradNorm: options.maxGradNorm ?? 1,
    maxConsecutiveSkips: options.maxConsecutiveSkips ?? 3,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.map(String).join('.') ?? '';
    const value = (options as unknown as Record<string, unknown>)[path];
    throw new ConfigError(
      `createTabularLearner: ${path} must be ${issue?.message ?? 'valid'}, got ${JSON.stringify(value)}.`,
      { path, context: { value } },
    );
  }
  const { candidates, lr, optimizer, maxGradNorm, maxConsecutiveSkips } = parsed.data;
  const n = candidates.length;
  const id = options.id ?? 'tabular';
  const rng = createRng(options.seed);
  const promptKey =
    options.promptKey ?? ((r: PolicyRequestV1) => r.messages[r.messages.length - 1]?.content ?? '');
  let table = new Map<string, Entry>();
  let step = 0;
  let consecutiveSkips = 0;
  let unseeded = 0;
  const zeros = new Float64Array(n);

  const logprobsOf = (key: string, out = new Float64Array(n)): Float64Array =>
    logSoftmax(table.get(key)?.logits ?? zeros, out);

  const entry = (key: string): Entry => {
    let e = table.get(key);
    if (!e) {
      e = { logits: new Float64Array(n), m: new Float64Array(n), v: new Float64Array(n) };
      table.set(key, e);
    }
    return e;
  };

  const checkRow = (row: Pick<LearnerRowV1, 'responseTokens'>, i: number): void => {
    for (const t of row.responseTokens) {
      if (!Number.isInteger(t) || t < 0 || t >= n) {
        throw new InvalidArgumentError(
          `Tabular learner: rows[${i}] has response token ${t}; token ids are candidate indices 0..${n - 1}.`,
        );
      }
    }
  };

  const sample = (request: PolicyRequestV1, sampling: SamplingOptions): PolicyResponseV1 => {
    const key = promptKey(request);
    const lp = logprobsOf(key);
    const temperature = sampling.temperature ?? 1;
    const order = Array.from({ length: n }, (_, i) => i).sort(
      (a, b) => (lp[b] as number) - (lp[a] as number) || a - b,
    );
    let allowed = order;
    if (sampling.topK !== undefined && sampling.topK > 0) allowed = allowed.slice(0, sampling.topK);
    let token: number;
    if (temperature <= 0) {
      token = allowed[0] as number;
    } else {
      const weights = allowed.map((i) =>
        Math.exp(((lp[i] as number) - (lp[allowed[0] as number] as number)) / temperature),
      );
      if (sampling.topP !== undefined && sampling.topP < 1) {
        const total = weights.reduce((a, b) => a + b, 0);
        let acc = 0;
        let keep = 0;
        while (keep < weights.length && acc < sampling.topP * total) acc += weights[keep++] as number;
        weights.length = Math.max(1, keep);
        allowed = allowed.slice(0, weights.length);
      }
      const r = request.seed === undefined ? rng.split(`unseeded-${unseeded++}`) : createRng(request.seed);
      token = allowed[r.weighted(weights)] as number;
    }
    return {
      text: candidates[token] as string,
      promptTokens: encodePromptKey(key),
      tokens: [token],
      logprobs: [lp[token] as number],
      finishReason: 'stop',
    };
  };

  const policy: PolicyV1 = {
    specificationVersion: 'v1',
    id,
    async generate(requests, sampling = {}) {
      throwIfAborted(sampling.signal);
      return requests.map((r) => sample(r, sampling));
    },
  };

  async function update(request: LearnerUpdateRequest): Promise<LearnerUpdateResult> {
    const start = performance.now();
    // Packed rows train as their spans' plain rows (one table lookup per span either way).
    const rows = unpackRows(request.rows);
    rows.forEach(checkRow);
    const epochs = request.epochs ?? 1;
    const mbRows = Math.max(1, request.miniBatchRows ?? rows.length);
    const entropyCoef = request.entropyCoef ?? 0;
    let steps = 0;
    let skipped = 0;
    let batches = 0;
    let lossSum = 0;
    let normSum = 0;
    let entropySum = 0;
    let tokenCount = 0;
    const statSums: Record<string, number> = {};
    const lp = new Float64Array(n);
    for (let epoch = 0; epoch < epochs; epoch++) {
      const order = rng.split(`update/${step}/${epoch}`).shuffle([...rows.keys()]);
      for (let s = 0; s < order.length; s += mbRows) {
        throwIfAborted(request.signal);
        const batch = order.slice(s, s + mbRows).map((i) => rows[i] as LearnerRowV1);
        const nTok = batch.reduce((acc, r) => acc + r.responseTokens.length, 0);
        if (nTok === 0) continue;
        const keys = batch.map((r) => decodePromptKey(r.promptTokens));
        const logprobs = new Float32Array(nTok);
        const oldLogprobs = new Float32Array(nTok);
        const advantages = new Float32Array(nTok);
        const rowOfToken = new Int32Array(nTok);
        const hasRef = batch.every((r) => r.refLogprobs !== undefined);
        const refLogprobs = hasRef ? new Float32Array(nTok) : undefined;
        let k = 0;
        batch.forEach((r, i) => {
          logprobsOf(keys[i] as string, lp);
          r.responseTokens.forEach((t, j) => {
            logprobs[k] = lp[t] as number;
            oldLogprobs[k] = r.oldLogprobs[j] ?? Number.NaN;
            if (refLogprobs) refLogprobs[k] = r.refLogprobs?.[j] ?? Number.NaN;
            advantages[k] = r.advantage;
            rowOfToken[k] = i;
            k++;
          });
        });
        const out = request.loss({
          logprobs,
          oldLogprobs,
          advantages,
          rowOfToken,
          ...(refLogprobs ? { refLogprobs } : {}),
        });
        if (out.weights.length !== nTok) {
          throw new InvalidArgumentError(
            `The token loss returned ${out.weights.length} weights for ${nTok} tokens.`,
          );
        }
        // Gradient of −Σ w·log p(a) − (c/N)·Σ H over the logits of each row's key.
        const grads = new Map<string, Float64Array>();
        let entropy = 0;
        k = 0;
        batch.forEach((r, i) => {
          const key = keys[i] as string;
          logprobsOf(key, lp);
          let g = grads.get(key);
          if (!g) {
            g = new Float64Array(n);
            grads.set(key, g);
          }
          let h = 0;
          for (let c = 0; c < n; c++) h -= Math.exp(lp[c] as number) * (lp[c] as number);
          for (const t of r.responseTokens) {
            const w = out.weights[k++] as number;
            for (let c = 0; c < n; c++) {
              const p = Math.exp(lp[c] as number);
              // d(−w log p_t)/dθ_c = −w (1[c = t] − p_c);  d(−(c/N) H)/dθ_c = (c/N) p_c (log p_c + H)
              g[c] =
                (g[c] as number) -
                w * ((c === t ? 1 : 0) - p) +
                (entropyCoef / nTok) * p * ((lp[c] as number) + h);
            }
            entropy += h;
          }
        });
        let sq = 0;
        for (const g of grads.values()) for (let c = 0; c < n; c++) sq += (g[c] as number) ** 2;
        const norm = Math.sqrt(sq);
        if (!Number.isFinite(norm) || !Number.isFinite(out.loss)) {
          skipped++;
          consecutiveSkips++;
          if (consecutiveSkips >= maxConsecutiveSkips) {
            throw new NumericInstabilityError(
              `Loss or gradients were NaN/Inf in ${consecutiveSkips} consecutive steps; stopping with the last good weights.`,
              { context: { step, consecutiveSkips } },
            );
          }
          continue;
        }
        consecutiveSkips = 0;
        // Loss, entropy and stats are averaged over the steps taken (skipped steps would make them NaN).
        batches++;
        tokenCount += nTok;
        entropySum += entropy;
        lossSum += out.loss;
        for (const [key, v] of Object.entries(out.stats)) statSums[key] = (statSums[key] ?? 0) + v;
        const clip = norm > maxGradNorm ? maxGradNorm / (norm + 1e-6) : 1;
        step++;
        const bc1 = 1 - BETA1 ** step;
        const bc2 = 1 - BETA2 ** step;
        for (const [key, g] of grads) {
          const e = entry(key);
          for (let c = 0; c < n; c++) {
            const gc = (g[c] as number) * clip;
            if (optimizer === 'sgd') {
              e.logits[c] = (e.logits[c] as number) - lr * gc;
            } else {
              e.m[c] = BETA1 * (e.m[c] as number) + (1 - BETA1) * gc;
              e.v[c] = BETA2 * (e.v[c] as number) + (1 - BETA2) * gc * gc;
              e.logits[c] =
                (e.logits[c] as number) -
                (lr * ((e.m[c] as number) / bc1)) / (Math.sqrt((e.v[c] as number) / bc2) + EPS);
            }
          }
        }
        steps++;
        normSum += norm;
      }
    }
    const stats: Record<string, number> = {};
    for (const [key, v] of Object.entries(statSums)) stats[key] = v / Math.max(1, batches);
    return {
      steps,
      skippedSteps: skipped,
      loss: lossSum / Math.max(1, batches),
      gradNorm: normSum / Math.max(1, steps),
      entropy: entropySum / Math.max(1, tokenCount),
      tokens: tokenCount,
      seconds: (performance.now() - start) / 1000,
      stats,
    };
  }

  return {
    specificationVersion: 'v1',
    id,
    policy,
    get step() {
      return step;
    },
    probabilities(key) {
      return logprobsOf(key).map(Math.exp);
    },
    keys: () => [...table.keys()],
    packedRows: { maxTokens: Number.MAX_SAFE_INTEGER },
    async logprobs(input) {
      const lp = new Float64Array(n);
      return input.map((one) => {
        const rows = unpackLogprobRows([one]);
        rows.forEach(checkRow);
        const out = new Float32Array(rows.reduce((k, r) => k + r.responseTokens.length, 0));
        let k = 0;
        for (const r of rows) {
          logprobsOf(decodePromptKey(r.promptTokens), lp);
          for (const t of r.responseTokens) out[k++] = lp[t] as number;
        }
        return out;
      });
    },
    update,
    async save(dir) {
      await writeJsonAtomic(join(dir, FILE), {
        format: 'mage-rl/tabular-learner@1',
        candidates,
        step,
        consecutiveSkips,
        // Entries as an array: object keys that look like integers would be reordered.
        entries: [...table].map(([key, e]) => [key, [...e.logits], [...e.m], [...e.v]]),
      });
    },
    async load(dir) {
      const path = join(dir, FILE);
      const saved = savedSchema.safeParse(await readJsonFile(path));
      if (!saved.success) {
        throw new CheckpointError(
          `'${path}' is not a tabular-learner checkpoint: ${saved.error.issues[0]?.message}.`,
          {
            context: { path },
          },
        );
      }
      const data = saved.data;
      if (data.candidates.length !== n || data.candidates.some((c, i) => c !== candidates[i])) {
        throw new CheckpointError(`'${path}' was saved with different candidates.`, { context: { path } });
      }
      const next = new Map<string, Entry>();
      for (const [key, logits, m, v] of data.entries) {
        if (logits.length !== n || m.length !== n || v.length !== n) {
          throw new CheckpointError(`'${path}': entry '${key}' does not have ${n} values.`, {
            context: { path },
          });
        }
        next.set(key, {
          logits: Float64Array.from(logits),
          m: Float64Array.from(m),
          v: Float64Array.from(v),
        });
      }
      table = next;
      step = data.step;
      consecutiveSkips = data.consecutiveSkips;
    },
    async dispose() {
      table = new Map();
    },
  };
}
