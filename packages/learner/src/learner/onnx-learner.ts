/**
 * `LearnerV1` + `PolicyV1` on onnxruntime: scoring and training graphs per (rows, length) bucket,
 * AdamW in TypeScript on weights that are graph inputs, sampling with the static KV buffer, atomic
 * checkpoints. Sessions live in a `GraphRunner` (a worker thread by default).
 */

import {
  CheckpointError,
  createRng,
  InvalidArgumentError,
  isPackedRow,
  type LearnerInputRowV1,
  type LearnerRowV1,
  type LearnerUpdateRequest,
  type LearnerUpdateResult,
  type LearnerV1,
  type LogprobRowV1,
  type PolicyRequestV1,
  type PolicyResponseV1,
  type PolicyV1,
  type Rng,
  restoreRng,
  type SamplingOptions,
  throwIfAborted,
  validatePackedRow,
} from '@mage-rl/core';
import { loadCheckpoint, saveCheckpoint } from '../checkpoint/checkpoint';
import type { TensorToWrite } from '../checkpoint/safetensors';
import { createGraph } from '../graph/graph';
import { serializeGraph } from '../graph/serialize';
import { initLora, type LoraOptions, loraSpecs, mergeLora } from '../lora/lora';
import type { ModelConfig } from '../model/config';
import { initParams, type ParamStore, paramSpecs } from '../model/params';
import { addModelLoss, buildTrainingGraph } from '../model/training-graph';
import { type AdamW, type AdamWOptions, createAdamW } from '../optim/adamw';
import { createLocalRunner, createWorkerRunner, type GraphRunner } from '../runtime/runner';
import type { TensorValue } from '../runtime/session';
import { bucketLength, createGenerator, type Generator, nextPow2 } from '../sampling/generator';
import type { TokenizerV1 } from '../tokenizer/tokenizer';

export interface OnnxLearnerOptions {
  readonly id?: string;
  readonly config: ModelConfig;
  readonly tokenizer: TokenizerV1;
  /** Initial weights by HF name (default: random from `seed`). Copied. */
  readonly weights?: ReadonlyMap<string, Float32Array>;
  readonly seed?: number | string;
  readonly optimizer?: AdamWOptions;
  /** Where sessions run (default a worker thread). */
  readonly runner?: GraphRunner | 'worker' | 'local';
  /**
   * At most this many rows per graph run (default 8). Mini-batches are split into micro-batches of
   * similar lengths; a micro-batch has a power-of-two row count and stays within `microBatchTokens`.
   */
  readonly microBatchRows?: number;
  /**
   * Token budget of one graph run: rows × bucket length (default `microBatchRows` × 256). A sequence
   * longer than the budget runs alone.
   */
  readonly microBatchTokens?: number;
  /** Response length limit when neither the request nor the call sets one (default 64). */
  readonly defaultMaxTokens?: number;
  /** Default sampling (temperature 1, no top-k/top-p). */
  readonly sampling?: Omit<SamplingOptions, 'signal' | 'maxTokens'>;
  /** Train LoRA adapters instead of all weights. */
  readonly lora?: LoraOptions;
  /** Initial LoRA adapters (default: A random, B zero). */
  readonly adapters?: ReadonlyMap<string, Float32Array>;
}

export interface OnnxLearner extends LearnerV1 {
  readonly config: ModelConfig;
  readonly tokenizer: TokenizerV1;
  /**
   * Live weights (updated in place by `update`). Read them; change them only through `update` and
   * `load` (the learner tracks a weights version to know when sampled log-probs are still current).
   */
  readonly weights: ParamStore;
  /** LoRA adapters (empty without LoRA). */
  readonly adapters: ParamStore;
  /** Optimizer steps taken so far. */
  readonly step: number;
  /** Base weights with the LoRA adapters folded in (the base weights themselves without LoRA). */
  mergedWeights(): ParamStore;
}

/** A token sequence with the spans whose tokens are scored (a plain row is one span after its prompt). */
interface Seq {
  readonly tokens: readonly number[];
  readonly spans: readonly { readonly start: number; readonly length: number }[];
}

/** A training unit: one sequence with the old/ref log-probs and advantage of each span. */
interface Unit extends Seq {
  readonly spans: readonly {
    readonly start: number;
    readonly length: number;
    readonly oldLogprobs: readonly number[];
    readonly refLogprobs?: readonly number[];
    readonly advantage: number;
  }[];
  /** The plain row it came from (for the sampler's identity check). */
  readonly plain?: LearnerRowV1;
}

const seqOf = (r: LogprobRowV1): Seq =>
  isPackedRow(r)
    ? r
    : {
        tokens: [...r.promptTokens, ...r.responseTokens],
        spans: [{ start: r.promptTokens.length, length: r.responseTokens.length }],
      };

const unitOf = (r: LearnerInputRowV1): Unit =>
  isPackedRow(r)
    ? r
    : {
        tokens: [...r.promptTokens, ...r.responseTokens],
        spans: [
          {
            start: r.promptTokens.length,
            length: r.responseTokens.length,
            oldLogprobs: r.oldLogprobs,
            ...(r.refLogprobs === undefined ? {} : { refLogprobs: r.refLogprobs }),
            advantage: r.advantage,
          },
        ],
        plain: r,
      };

const spanTokens = (s: Seq): number => s.spans.reduce((n, x) => n + x.length, 0);

interface Packed {
  readonly B: number;
  readonly T: number;
  readonly ids: BigInt64Array;
  readonly targets: BigInt64Array;
  /** Flat position (b·T + t) of every span token, sequence by sequence, span by span. */
  readonly positions: Int32Array[];
}

export async function createOnnxLearner(options: OnnxLearnerOptions): Promise<OnnxLearner> {
  const c = options.config;
  const id = options.id ?? `onnx-${c.architecture}`;
  const tokenizer = options.tokenizer;
  if (tokenizer.vocabSize > c.vocabSize) {
    throw new InvalidArgumentError(
      `The tokenizer has ${tokenizer.vocabSize} ids but the model only ${c.vocabSize}.`,
    );
  }
  const specs = paramSpecs(c);
  let rng: Rng = createRng(options.seed ?? 0);
  const weights: ParamStore = initParams(c, rng.split('init'));
  if (options.weights !== undefined) {
    for (const s of specs) {
      const w = options.weights.get(s.name);
      const dst = weights.get(s.name) as Float32Array;
      if (w === undefined || w.length !== dst.length) {
        throw new InvalidArgumentError(`Initial weights lack '${s.name}' of ${dst.length} values.`);
      }
      dst.set(w);
    }
  }
  const lora = options.lora;
  const adapters: ParamStore = lora === undefined ? new Map() : initLora(c, lora, rng.split('lora'));
  if (lora !== undefined && options.adapters !== undefined) {
    for (const [name, dst] of adapters) {
      const a = options.adapters.get(name);
      if (a === undefined || a.length !== dst.length)
        throw new InvalidArgumentError(`Initial adapters lack '${name}'.`);
      dst.set(a);
    }
  }
  const trainSpecs = lora === undefined ? specs : loraSpecs(c, lora);
  const trainStore: ParamStore = lora === undefined ? weights : adapters;
  const storeOf = (name: string): Float32Array => (adapters.get(name) ?? weights.get(name)) as Float32Array;
  const optimizerOptions: AdamWOptions = options.optimizer ?? { lr: 1e-4 };
  let optimizer: AdamW = createAdamW(optimizerOptions);
  const runner: GraphRunner =
    options.runner === 'local'
      ? createLocalRunner()
      : options.runner === undefined || options.runner === 'worker'
        ? createWorkerRunner()
        : options.runner;
  const micro = options.microBatchRows ?? 8;
  const microTokens = options.microBatchTokens ?? micro * 256;
  const trainable = trainSpecs.map((s) => s.name);

  const syncWeights = async (trainableOnly = false) => {
    const feeds: Record<string, TensorValue> = {};
    if (!trainableOnly)
      for (const s of specs) feeds[s.name] = { data: weights.get(s.name) as Float32Array, dims: s.shape };
    for (const s of trainSpecs)
      feeds[s.name] = { data: trainStore.get(s.name) as Float32Array, dims: s.shape };
    await runner.setPersistent(feeds);
    weightsVersion++;
  };
  /** Bumped whenever the runner gets new weights. */
  let weightsVersion = 0;
  /**
   * Responses this learner sampled, by their log-prob array: the prompt and response arrays returned
   * with them and the weights version that produced them. An `update` row that carries these very
   * arrays while the version is unchanged has current log-probs equal to its old ones (the sampler's
   * log-probs match the training graph's to 1e-5), so no scoring forward is needed for it.
   */
  const sampled = new WeakMap<
    object,
    { version: number; prompt: readonly number[]; tokens: readonly number[] }
  >();
  const sameTokens = (a: readonly number[], b: readonly number[], from: number, to: number): boolean => {
    if (a.length !== to - from) return false;
    for (let i = from; i < to; i++) if (a[i - from] !== b[i]) return false;
    return true;
  };
  /** Whether every span of `u` is a response the sampler produced under the current weights. */
  const scoredBySampler = (u: Unit): boolean =>
    u.spans.every((s) => {
      const entry = sampled.get(s.oldLogprobs);
      if (entry === undefined || entry.version !== weightsVersion || s.oldLogprobs.length !== s.length)
        return false;
      if (u.plain !== undefined)
        return entry.prompt === u.plain.promptTokens && entry.tokens === u.plain.responseTokens;
      return (
        sameTokens(entry.prompt, u.tokens, 0, s.start) &&
        sameTokens(entry.tokens, u.tokens, s.start, s.start + s.length)
      );
    });
  await syncWeights();
  const generator: Generator = createGenerator({
    config: c,
    runner,
    ...(lora === undefined ? {} : { graphOptions: { lora } }),
  });

  const bucketLen = (n: number) => bucketLength(n, 16, c.maxPositions);

  function validate(rows: readonly LogprobRowV1[]): void {
    for (const r of rows) {
      if (isPackedRow(r)) {
        validatePackedRow(r);
      } else if (r.promptTokens.length === 0) {
        throw new InvalidArgumentError('A row needs at least one prompt token.');
      }
      const tokens = isPackedRow(r) ? r.tokens : [...r.promptTokens, ...r.responseTokens];
      const n = tokens.length - 1;
      if (n > c.maxPositions) {
        throw new InvalidArgumentError(`A row of ${n + 1} tokens exceeds maxPositions ${c.maxPositions}.`);
      }
      for (const t of tokens) {
        if (!Number.isInteger(t) || t < 0 || t >= c.vocabSize) {
          throw new InvalidArgumentError(`Token id ${t} is outside the vocabulary of ${c.vocabSize}.`);
        }
      }
    }
  }

  /** The input length a sequence needs: up to its last scored token. */
  const inputLen = (s: Seq): number => {
    const last = s.spans.at(-1);
    return Math.max(1, last === undefined ? 1 : last.start + last.length - 1);
  };

  function pack(seqs: readonly Seq[]): Packed {
    const B = nextPow2(seqs.length);
    const T = bucketLen(Math.max(1, ...seqs.map(inputLen)));
    const ids = new BigInt64Array(B * T);
    const targets = new BigInt64Array(B * T);
    const positions: Int32Array[] = [];
    seqs.forEach((s, b) => {
      const n = inputLen(s);
      for (let t = 0; t < n && t + 1 < s.tokens.length; t++) {
        ids[b * T + t] = BigInt(s.tokens[t] as number);
        targets[b * T + t] = BigInt(s.tokens[t + 1] as number);
      }
      const pos = new Int32Array(spanTokens(s));
      let k = 0;
      for (const span of s.spans) for (let j = 0; j < span.length; j++) pos[k++] = b * T + span.start - 1 + j;
      positions.push(pos);
    });
    return { B, T, ids, targets, positions };
  }

  /**
   * Micro-batches of similar lengths (sequence indices): shortest first, a batch grows while its padded
   * size (power-of-two rows × bucket length of its longest sequence) stays within the token budget and
   * `micro` rows — so short sequences run many to a graph and long ones few, with little padding.
   */
  function microBatches(seqs: readonly Seq[]): number[][] {
    const order = seqs.map((s, i) => [inputLen(s), i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const out: number[][] = [];
    let open: number[] = [];
    for (const [len, i] of order) {
      const T = bucketLen(len);
      const rows = open.length + 1;
      if (open.length > 0 && (rows > micro || nextPow2(rows) * T > Math.max(microTokens, T))) {
        out.push(open);
        open = [];
      }
      open.push(i);
    }
    if (open.length > 0) out.push(open);
    return out;
  }

  const baseFeeds = (p: Packed, w?: Float32Array, ew?: Float32Array): Record<string, TensorValue> => ({
    input_ids: { data: p.ids, dims: [p.B, p.T] },
    targets: { data: p.targets, dims: [p.B * p.T] },
    weights: { data: w ?? new Float32Array(p.B * p.T), dims: [p.B * p.T] },
    entropy_weights: { data: ew ?? new Float32Array(p.B * p.T), dims: [p.B * p.T] },
  });

  /** Log-probs of every span token of each sequence (spans concatenated). */
  async function score(rows: readonly Seq[]): Promise<Float32Array[]> {
    const logprobs: Float32Array[] = new Array(rows.length);
    for (const idx of microBatches(rows)) {
      const p = pack(idx.map((i) => rows[i] as Seq));
      const key = `score:${p.B}x${p.T}`;
      await runner.load(key, () => {
        const g = createGraph();
        const m = addModelLoss(g, {
          config: c,
          batch: p.B,
          seqLen: p.T,
          ...(lora === undefined ? {} : { lora }),
        });
        g.output('logprobs', m.logprobs);
        return serializeGraph(g);
      });
      const out = await runner.run(key, baseFeeds(p));
      const lp = out.logprobs?.data as Float32Array;
      idx.forEach((rowIndex, b) => {
        const pos = p.positions[b] as Int32Array;
        logprobs[rowIndex] = Float32Array.from(pos, (q) => lp[q] as number);
      });
    }
    return logprobs;
  }

  let generateCounter = 0;
  const policy: PolicyV1 = {
    specificationVersion: 'v1',
    id,
    async generate(
      requests: readonly PolicyRequestV1[],
      sampling: SamplingOptions = {},
    ): Promise<readonly PolicyResponseV1[]> {
      throwIfAborted(sampling.signal);
      const prompts = requests.map((r) => tokenizer.encodeChat(r.messages));
      const rows = await generator.generate({
        prompts,
        seeds: requests.map((r) => r.seed ?? `${id}/generate/${generateCounter++}`),
        maxTokens: requests.map((r) => r.maxTokens ?? sampling.maxTokens ?? options.defaultMaxTokens ?? 64),
        sampling: {
          temperature: sampling.temperature ?? options.sampling?.temperature ?? 1,
          topK: sampling.topK ?? options.sampling?.topK ?? 0,
          topP: sampling.topP ?? options.sampling?.topP ?? 1,
        },
        eosTokenIds: tokenizer.eosTokenIds,
        shouldStop: (b, tokens) => {
          const stop = requests[b]?.stop;
          if (stop === undefined || stop.length === 0) return false;
          const text = tokenizer.decode(tokens);
          return stop.some((s) => s.length > 0 && text.includes(s));
        },
        ...(sampling.signal === undefined ? {} : { signal: sampling.signal }),
      });
      return rows.map((r, i) => {
        const promptTokens = prompts[i] as number[];
        sampled.set(r.logprobs, { version: weightsVersion, prompt: promptTokens, tokens: r.tokens });
        return {
          text: tokenizer.decode(r.tokens),
          promptTokens,
          tokens: r.tokens,
          logprobs: r.logprobs,
          finishReason: r.finishReason,
        };
      });
    },
  };

  async function update(request: LearnerUpdateRequest): Promise<LearnerUpdateResult> {
    const start = performance.now();
    validate(request.rows);
    const units = request.rows.map(unitOf);
    const epochs = request.epochs ?? 1;
    const mbRows = Math.max(1, request.miniBatchRows ?? Number.POSITIVE_INFINITY);
    const entropyCoef = request.entropyCoef ?? 0;
    const grads = new Map<string, Float32Array>(
      trainSpecs.map((s) => [s.name, new Float32Array(trainStore.get(s.name)?.length ?? 0)]),
    );
    let steps = 0;
    let skipped = 0;
    let lossSum = 0;
    let normSum = 0;
    let entropySum = 0;
    let tokenCount = 0;
    const statSums: Record<string, number> = {};
    let batches = 0;
    for (let epoch = 0; epoch < epochs; epoch++) {
      const order = rng.split(`update/${optimizer.state.step}/${epoch}`).shuffle([...units.keys()]);
      // Mini-batches of whole units (a plain row is one span): a batch closes when the spans so far
      // reach the next multiple of `mbRows`, so there are as many steps as for the plain rows (or one
      // fewer) and batch sizes average `mbRows` spans.
      const miniBatches: Unit[][] = [];
      let open: Unit[] = [];
      let spansSoFar = 0;
      for (const i of order) {
        const u = units[i] as Unit;
        open.push(u);
        spansSoFar += Math.max(1, u.spans.length);
        if (spansSoFar >= (miniBatches.length + 1) * mbRows) {
          miniBatches.push(open);
          open = [];
        }
      }
      if (open.length > 0) miniBatches.push(open);
      for (const batch of miniBatches) {
        throwIfAborted(request.signal);
        // Log-probs under the current weights: the sampler's own when the rows are fresh from it; none
        // before the backward pass when the loss's weights ignore them (then the training pass's are used).
        const fresh = batch.every(scoredBySampler);
        const deferred = !fresh && request.loss.usesCurrentLogprobs === false;
        const current = fresh
          ? batch.map((u) => Float32Array.from(u.spans.flatMap((sp) => sp.oldLogprobs)))
          : deferred
            ? batch.map((u) => new Float32Array(spanTokens(u)).fill(Number.NaN))
            : await score(batch);
        const nTok = batch.reduce((n, u) => n + spanTokens(u), 0);
        if (nTok === 0) continue;
        // Loss inputs span by span (every span is a row of `rowOfToken`), as for the plain rows.
        const logprobs = new Float32Array(nTok);
        const oldLogprobs = new Float32Array(nTok);
        const hasRef = batch.every((u) => u.spans.every((sp) => sp.refLogprobs !== undefined));
        const refLogprobs = hasRef ? new Float32Array(nTok) : undefined;
        const advantages = new Float32Array(nTok);
        const rowOfToken = new Int32Array(nTok);
        let k = 0;
        let row = 0;
        batch.forEach((u, b) => {
          const cur = current[b] as Float32Array;
          let c0 = 0;
          for (const sp of u.spans) {
            for (let j = 0; j < sp.length; j++) {
              logprobs[k] = cur[c0 + j] as number;
              oldLogprobs[k] = sp.oldLogprobs[j] ?? Number.NaN;
              if (refLogprobs) refLogprobs[k] = sp.refLogprobs?.[j] ?? Number.NaN;
              advantages[k] = sp.advantage;
              rowOfToken[k] = row;
              k++;
            }
            c0 += sp.length;
            row++;
          }
        });
        const lossInput = {
          logprobs,
          oldLogprobs,
          ...(refLogprobs ? { refLogprobs } : {}),
          advantages,
          rowOfToken,
        };
        let lossOut = request.loss(lossInput);
        if (lossOut.weights.length !== nTok) {
          throw new InvalidArgumentError(
            `The token loss returned ${lossOut.weights.length} weights for ${nTok} tokens.`,
          );
        }
        // Back-propagate −Σ w·log p − Σ (entropyCoef/N)·H over micro-batches; gradients add up.
        for (const g of grads.values()) g.fill(0);
        const offsets: number[] = [];
        let off = 0;
        for (const u of batch) {
          offsets.push(off);
          off += spanTokens(u);
        }
        for (const idx of microBatches(batch)) {
          const p = pack(idx.map((i) => batch[i] as Unit));
          const w = new Float32Array(p.B * p.T);
          const ew = new Float32Array(p.B * p.T);
          idx.forEach((rowIndex, b) => {
            const pos = p.positions[b] as Int32Array;
            const o = offsets[rowIndex] as number;
            pos.forEach((q, j) => {
              w[q] = lossOut.weights[o + j] as number;
              ew[q] = entropyCoef / nTok;
            });
          });
          const key = `train:${p.B}x${p.T}`;
          await runner.load(key, () =>
            serializeGraph(
              buildTrainingGraph({
                config: c,
                batch: p.B,
                seqLen: p.T,
                trainable,
                ...(lora === undefined ? {} : { lora }),
              }).graph,
            ),
          );
          const out = await runner.run(key, baseFeeds(p, w, ew));
          if (deferred) {
            const lp = out.logprobs?.data as Float32Array;
            idx.forEach((rowIndex, b) => {
              const o = offsets[rowIndex] as number;
              (p.positions[b] as Int32Array).forEach((q, j) => {
                logprobs[o + j] = lp[q] as number;
              });
            });
          }
          const ent = out.entropy?.data as Float32Array;
          for (const pos of p.positions) for (const q of pos) entropySum += ent[q] as number;
          for (const name of trainable) {
            const gsrc = out[`grad.${name}`]?.data as Float32Array;
            const acc = grads.get(name) as Float32Array;
            for (let i = 0; i < acc.length; i++) acc[i] = (acc[i] as number) + (gsrc[i] as number);
          }
        }
        if (deferred) lossOut = request.loss(lossInput);
        const result = optimizer.step(trainStore, grads);
        batches++;
        lossSum += lossOut.loss;
        for (const [key, v] of Object.entries(lossOut.stats)) statSums[key] = (statSums[key] ?? 0) + v;
        tokenCount += nTok;
        if (result.skipped) {
          skipped++;
        } else {
          steps++;
          normSum += result.gradNorm;
          await syncWeights(true);
        }
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
    config: c,
    tokenizer,
    weights,
    adapters,
    mergedWeights: () => (lora === undefined ? new Map(weights) : mergeLora(c, lora, weights, adapters)),
    get step() {
      return optimizer.state.step;
    },
    policy,
    packedRows: { maxTokens: c.maxPositions + 1 },
    async logprobs(rows) {
      validate(rows);
      return score(rows.map(seqOf));
    },
    update,
    async save(dir) {
      const tensors = new Map<string, TensorToWrite>();
      const all = lora === undefined ? specs : [...specs, ...trainSpecs];
      for (const s of all) tensors.set(s.name, { data: storeOf(s.name), shape: s.shape });
      await saveCheckpoint(dir, {
        weights: tensors,
        optimizer: optimizer.state,
        rng: rng.getState(),
        step: optimizer.state.step,
        metadata: {
          id,
          config: { ...c },
          lora:
            lora === undefined
              ? null
              : { rank: lora.rank, alpha: lora.alpha ?? lora.rank, targets: [...(lora.targets ?? [])] },
        },
      });
    },
    async load(dir) {
      const ck = await loadCheckpoint(dir);
      const all = lora === undefined ? specs : [...specs, ...trainSpecs];
      for (const s of all) {
        const t = ck.weights.get(s.name);
        const dst = storeOf(s.name);
        if (t === undefined || t.data.length !== dst.length) {
          throw new CheckpointError(
            `Checkpoint ${dir} lacks '${s.name}' with shape [${s.shape.join(', ')}].`,
          );
        }
      }
      for (const s of all) storeOf(s.name).set((ck.weights.get(s.name) as TensorToWrite).data);
      optimizer = createAdamW(
        optimizerOptions,
        ck.optimizer ?? { step: ck.step, consecutiveSkips: 0, m: new Map(), v: new Map() },
      );
      if (ck.rng !== undefined) rng = restoreRng(ck.rng);
      await syncWeights();
    },
    async dispose() {
      if (typeof options.runner !== 'object') await runner.dispose();
    },
  };
}
