import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LearnerRowV1, packRows, type TokenLossFn } from '@mage-rl/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalRunner, type GraphRunner } from '../runtime/runner';
import { TINY_CONFIG, TINY_LEARNER } from '../testing/tiny-config.test-helper';
import { createByteTokenizer } from '../tokenizer/tokenizer';
import { createOnnxLearner, type OnnxLearner, type OnnxLearnerOptions } from './onnx-learner';
import { seqOf } from './rows';
import { fitsSegmentRun, type SegmentRunShape } from './segments';

const config = TINY_CONFIG;
const tokenizer = createByteTokenizer();
const root = await mkdtemp(join(tmpdir(), 'mage-learner-'));
const make = (runner: GraphRunner | 'local' | 'worker' = 'local', extra: Partial<OnnxLearnerOptions> = {}) =>
  createOnnxLearner({
    ...TINY_LEARNER,
    runner,
    ...extra,
  });
const learner = await make('worker');
afterAll(async () => {
  await learner.dispose();
  await rm(root, { recursive: true, force: true });
});

/** Cross-entropy: w = 1/N for every token. */
const crossEntropy: TokenLossFn = (input) => {
  const n = input.logprobs.length;
  let loss = 0;
  for (const x of input.logprobs) loss -= x / n;
  return { weights: new Float32Array(n).fill(1 / n), loss, stats: { tokens: n } };
};

const rowsOf = (texts: [string, string][]): LearnerRowV1[] =>
  texts.map(([p, r]) => ({
    promptTokens: tokenizer.encode(p),
    responseTokens: tokenizer.encode(r),
    oldLogprobs: new Array(r.length).fill(0),
    advantage: 1,
  }));

/** Every weight of `b` within `tolerance` of `a`'s (the largest absolute difference per tensor). */
function expectSameWeights(a: OnnxLearner, b: OnnxLearner, tolerance: number): void {
  for (const [name, w] of a.weights) {
    const v = b.weights.get(name) as Float32Array;
    let diff = 0;
    w.forEach((x, i) => {
      diff = Math.max(diff, Math.abs(x - (v[i] as number)));
    });
    expect(diff, name).toBeLessThan(tolerance);
  }
}

/** A local runner that records the key of every run. */
function recordingRunner(): { runner: GraphRunner; keys: string[] } {
  const keys: string[] = [];
  const local = createLocalRunner();
  const runner: GraphRunner = {
    ...local,
    run(key, feeds, options) {
      keys.push(key);
      return local.run(key, feeds, options);
    },
  };
  return { runner, keys };
}

/** A local runner that counts the scoring passes (`score:` graphs) it runs. */
function countingRunner(): { runner: GraphRunner; scoring: () => number } {
  const { runner, keys } = recordingRunner();
  return { runner, scoring: () => keys.filter((k) => k.startsWith('score:')).length };
}

describe('OnnxLearner', () => {
  it('generates through PolicyV1 with log-probs equal to logprobs() (1e-5) and honours stop strings', async () => {
    const responses = await learner.policy.generate(
      [
        { messages: [{ role: 'user', content: 'hi' }], phase: 'play', seed: 1, maxTokens: 12 },
        {
          messages: [{ role: 'user', content: 'a longer prompt here' }],
          phase: 'play',
          seed: 2,
          maxTokens: 7,
        },
      ],
      { temperature: 1 },
    );
    const scored = await learner.logprobs(
      responses.map((r) => ({ promptTokens: r.promptTokens, responseTokens: r.tokens })),
    );
    responses.forEach((r, i) => {
      expect(r.tokens.length).toBeGreaterThan(0);
      expect(r.logprobs.length).toBe(r.tokens.length);
      for (const [j, lp] of r.logprobs.entries())
        expect(Math.abs(lp - (scored[i]?.[j] as number))).toBeLessThan(1e-5);
    });
    const first = responses[0]?.text.slice(0, 1) as string;
    const stopped = await learner.policy.generate([
      { messages: [{ role: 'user', content: 'hi' }], phase: 'play', seed: 1, maxTokens: 12, stop: [first] },
    ]);
    if (first.length > 0 && !first.includes('\ufffd')) {
      expect(stopped[0]?.finishReason).toBe('stop');
      expect(stopped[0]?.text.includes(first)).toBe(true);
    }
  });

  it('cuts a response where the context is full, and answers a prompt that fills it alone with nothing', async () => {
    const overhead = tokenizer.encodeChat([{ role: 'user', content: '' }]).length;
    const near = 'x'.repeat(config.maxPositions - overhead - 12);
    const [cut, full, short] = await learner.policy.generate([
      { messages: [{ role: 'user', content: near }], phase: 'play', seed: 1, maxTokens: 64 },
      { messages: [{ role: 'user', content: 'y'.repeat(config.maxPositions + 5) }], phase: 'play', seed: 2 },
      { messages: [{ role: 'user', content: 'hi' }], phase: 'play', seed: 3, maxTokens: 4 },
    ]);
    expect((cut?.promptTokens.length ?? 0) + (cut?.tokens.length ?? 0)).toBeLessThanOrEqual(
      config.maxPositions,
    );
    expect(full).toMatchObject({ text: '', tokens: [], logprobs: [], finishReason: 'length' });
    expect(short?.tokens.length).toBeGreaterThan(0);
    // The request that fits plays as it would alone (same seed, same tokens).
    const [alone] = await learner.policy.generate([
      { messages: [{ role: 'user', content: 'hi' }], phase: 'play', seed: 3, maxTokens: 4 },
    ]);
    expect(alone?.tokens).toEqual(short?.tokens);
  });

  it('uses ChatMessage.tokens verbatim', async () => {
    const tokens = [200, 201, 202];
    const [r] = await learner.policy.generate([
      {
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: 'ignored text', tokens },
          { role: 'user', content: 'y' },
        ],
        phase: 'reflect',
        seed: 3,
        maxTokens: 2,
      },
    ]);
    const prompt = r?.promptTokens ?? [];
    const at = prompt.findIndex((_, i) => prompt.slice(i, i + 3).join() === tokens.join());
    expect(at).toBeGreaterThan(0);
    expect(tokenizer.decode(prompt)).not.toContain('ignored text');
  });

  it('learns: cross-entropy updates raise the log-prob of the trained responses', async () => {
    const rows = rowsOf([
      ['Q: 1+1?', ' A: 2'],
      ['Q: 2+2?', ' A: 4'],
      ['Q: color of sky?', ' A: blue'],
    ]);
    const before = (await learner.logprobs(rows)).flatMap((x) => Array.from(x));
    let last = await learner.update({
      rows,
      loss: crossEntropy,
      epochs: 10,
      miniBatchRows: 3,
      entropyCoef: 0.001,
    });
    expect(last.steps).toBe(10);
    expect(last.skippedSteps).toBe(0);
    expect(last.gradNorm).toBeGreaterThan(0);
    expect(last.stats.tokens).toBeGreaterThan(0);
    last = await learner.update({ rows, loss: crossEntropy, epochs: 10, miniBatchRows: 2 });
    const after = (await learner.logprobs(rows)).flatMap((x) => Array.from(x));
    const mean = (x: number[]) => x.reduce((p, v) => p + v, 0) / x.length;
    expect(mean(after)).toBeGreaterThan(mean(before) + 1);
    expect(learner.step).toBe(10 + 20);
  });

  it('skips steps whose weights are NaN and keeps the weights', async () => {
    const rows = rowsOf([['a', 'b']]);
    const before = Float32Array.from(learner.weights.get('model.norm.weight') as Float32Array);
    const nanLoss: TokenLossFn = (input) => ({
      weights: new Float32Array(input.logprobs.length).fill(Number.NaN),
      loss: Number.NaN,
      stats: {},
    });
    const r = await learner.update({ rows, loss: nanLoss });
    expect(r.skippedSteps).toBe(1);
    expect(r.steps).toBe(0);
    expect(Array.from(learner.weights.get('model.norm.weight') as Float32Array)).toEqual(Array.from(before));
  });

  it('takes current log-probs from its own sampler while the weights are unchanged (no scoring forward)', async () => {
    const run = async (copy: boolean) => {
      const { runner, scoring } = countingRunner();
      const l = await createOnnxLearner({ config, tokenizer, seed: 4, runner, microBatchRows: 2 });
      const responses = await l.policy.generate(
        ['ab', 'cde', 'f'].map((content, i) => ({
          messages: [{ role: 'user' as const, content }],
          phase: 'play' as const,
          seed: i,
          maxTokens: 5,
        })),
      );
      const rows: LearnerRowV1[] = responses.map((r) => ({
        promptTokens: copy ? [...r.promptTokens] : r.promptTokens,
        responseTokens: copy ? [...r.tokens] : r.tokens,
        oldLogprobs: copy ? [...r.logprobs] : r.logprobs,
        advantage: 1,
      }));
      const seen: { logprobs: number[]; old: number[] }[] = [];
      const ratioLoss: TokenLossFn = (input) => {
        seen.push({ logprobs: Array.from(input.logprobs), old: Array.from(input.oldLogprobs) });
        const n = input.logprobs.length;
        const weights = Float32Array.from(
          input.logprobs,
          (lp, i) => Math.exp(lp - (input.oldLogprobs[i] as number)) / n,
        );
        return { weights, loss: 0, stats: {} };
      };
      await l.update({ rows, loss: ratioLoss, epochs: 2 });
      await l.dispose();
      return { scoring: scoring(), seen };
    };
    const fresh = await run(false);
    // epoch 1 uses the sampler's log-probs exactly; epoch 2 (after a step) scores its run (the three
    // sequences share one segment row)
    expect(fresh.scoring).toBe(1);
    expect(fresh.seen[0]?.logprobs).toEqual(fresh.seen[0]?.old.map(Math.fround));
    const copied = await run(true);
    expect(copied.scoring).toBe(2);
    copied.seen[0]?.logprobs.forEach((lp, i) => {
      expect(Math.abs(lp - (copied.seen[0]?.old[i] as number))).toBeLessThan(1e-5);
    });
  });

  it('skips the scoring pass for a loss whose weights ignore the current log-probs, with the same result', async () => {
    const rows = rowsOf([
      ['Q: 1+1?', ' A: 2'],
      ['Q: a much longer question than the others?', ' A: no'],
      ['Q: x', ' A: y'],
    ]);
    const run = async (loss: TokenLossFn) => {
      const { runner, scoring } = countingRunner();
      const l = await createOnnxLearner({ config, tokenizer, seed: 5, runner, microBatchRows: 2 });
      const r = await l.update({ rows, loss, epochs: 2, miniBatchRows: 3 });
      const norm = Array.from(l.weights.get('model.layers.0.mlp.up_proj.weight') as Float32Array);
      await l.dispose();
      return { r, scoring: scoring(), norm };
    };
    const eager = await run(crossEntropy);
    const deferred = await run(
      Object.assign((i: Parameters<TokenLossFn>[0]) => crossEntropy(i), {
        usesCurrentLogprobs: false,
      }),
    );
    expect(eager.scoring).toBeGreaterThan(0);
    expect(deferred.scoring).toBe(0);
    expect(deferred.norm).toEqual(eager.norm);
    expect(deferred.r.loss).toBeCloseTo(eager.r.loss, 5);
    expect(Number.isFinite(deferred.r.loss)).toBe(true);
  });

  it('packed rows: same log-probs, same loss inputs and the same weights after an update as the plain rows', async () => {
    // Two slots' transcripts: each turn's prompt extends the previous prompt + response.
    const turns = (seed: number): LearnerRowV1[] => {
      const rows: LearnerRowV1[] = [];
      let prefix = tokenizer.encode(`task ${seed}:`);
      for (let t = 0; t < 3; t++) {
        prefix = [...prefix, ...tokenizer.encode(` obs${t + seed}`)];
        const response = tokenizer.encode(` move ${t * seed}`);
        rows.push({
          promptTokens: prefix,
          responseTokens: response,
          oldLogprobs: response.map((_, j) => -2 - 0.1 * j),
          refLogprobs: response.map((_, j) => -2.5 + 0.05 * j),
          advantage: t - seed / 3,
        });
        prefix = [...prefix, ...response];
      }
      return rows;
    };
    const rows = [...turns(1), ...turns(2)];
    const packed = packRows(rows, { groupOf: (_, i) => String(Math.floor(i / 3)) }).rows;
    expect(packed.map((p) => p.spans.length)).toEqual([3, 3]);
    const seen: { plain: number[][]; packed: number[][] } = { plain: [], packed: [] };
    const ppo =
      (into: number[][]): TokenLossFn =>
      (input) => {
        const n = input.logprobs.length;
        const ratio = Float32Array.from(input.logprobs, (lp, i) =>
          Math.exp(lp - (input.oldLogprobs[i] as number)),
        );
        const weights = Float32Array.from(ratio, (r, i) => (r * (input.advantages[i] as number)) / n);
        into.push([
          ...[...input.logprobs].map((x) => Math.round(x * 1e4) / 1e4),
          ...input.advantages,
          ...(input.refLogprobs ?? []),
          ...input.rowOfToken,
        ]);
        return { weights, loss: 0, stats: {} };
      };
    const a = await make();
    const b = await make();
    const plainLp = (await a.logprobs(rows)).flatMap((x) => Array.from(x));
    const packedLp = (await b.logprobs(packed)).flatMap((x) => Array.from(x));
    expect(packedLp.length).toBe(plainLp.length);
    packedLp.forEach((lp, i) => {
      expect(Math.abs(lp - (plainLp[i] as number))).toBeLessThan(1e-5);
    });
    // One mini-batch: token order inside it does not change the step; sort both by content to compare.
    await a.update({ rows, loss: ppo(seen.plain), entropyCoef: 0.01 });
    await b.update({ rows: packed, loss: ppo(seen.packed), entropyCoef: 0.01 });
    expect(seen.packed[0]?.length).toBe(seen.plain[0]?.length);
    const sorted = (x: number[] | undefined) => [...(x ?? [])].sort((p, q) => p - q);
    expect(sorted(seen.packed[0])).toEqual(sorted(seen.plain[0]));
    for (const [name, w] of a.weights) {
      const v = b.weights.get(name) as Float32Array;
      let diff = 0;
      let norm = 0;
      w.forEach((x, i) => {
        diff = Math.max(diff, Math.abs(x - (v[i] as number)));
        norm = Math.max(norm, Math.abs(x));
      });
      expect(diff).toBeLessThan(1e-5 * Math.max(1, norm));
    }
    // Packed rows count as their spans for mini-batches: 6 spans, 3 per step → 2 steps.
    const r = await b.update({ rows: packed, loss: ppo([]), miniBatchRows: 3 });
    expect(r.steps).toBe(2);
    expect(r.tokens).toBe(rows.reduce((n, x) => n + x.responseTokens.length, 0));
    await a.dispose();
    await b.dispose();
  });

  it('segment rows (several sequences per row) train like one sequence per row, in fewer and fuller runs', async () => {
    const { runner: recording, keys } = recordingRunner();
    const optimizer = { lr: 1e-2, weightDecay: 0, eps: 1 };
    const plain = await make('local', { optimizer, microBatchRows: 4, microBatchTokens: 192 });
    const segmented = await make(recording, {
      optimizer,
      microBatchRows: 4,
      microBatchTokens: 192,
      segmentRows: true,
    });
    const rows = rowsOf([
      ['Q: 1+1?', ' A: 2'],
      ['Q: a much longer question than the others here?', ' A: a longer answer'],
      ['Q: color of sky?', ' A: blue'],
      ['Q: x', ' A: y'],
      ['Q: what is the capital of France?', ' A: Paris'],
    ]);
    const deferred: TokenLossFn = Object.assign((input: Parameters<TokenLossFn>[0]) => crossEntropy(input), {
      usesCurrentLogprobs: false,
    });
    for (const l of [plain, segmented]) {
      for (const loss of [crossEntropy, deferred]) {
        await l.update({ rows, loss, epochs: 2, miniBatchRows: 3, entropyCoef: 0.01 });
      }
    }
    expectSameWeights(plain, segmented, 1e-6);
    const after = (await plain.logprobs(rows)).flatMap((x) => Array.from(x));
    const got = (await segmented.logprobs(rows)).flatMap((x) => Array.from(x));
    got.forEach((lp, i) => {
      expect(Math.abs(lp - (after[i] as number))).toBeLessThan(1e-5);
    });
    // Rows of the model's 128 positions (fewer than `MIN_SEGMENT_ROW`): each mini-batch (3 or 2 sequences)
    // fits one row, whose run is as long as the bucket of its fill.
    const train = keys.filter((k) => k.startsWith('train:'));
    expect(train.length).toBe(2 * 2 * 2);
    expect(
      train.every((k) => /^train:1x(32|48|64|96|128)p$/.test(k)),
      train.join(),
    ).toBe(true);
    await plain.dispose();
    await segmented.dispose();
  });

  it('segment rows of a fixed length hold up to that length whatever the update holds; the learner tells the shape of a full run', async () => {
    const { runner: recording, keys } = recordingRunner();
    const options = { microBatchRows: 4, microBatchTokens: 256 };
    const fixed = await make(recording, { ...options, segmentRows: { rowLength: 120 } });
    // Rounded up to its bucket; 256 positions hold two rows of 128.
    expect(fixed.segmentRun).toEqual({ rowLength: 128, rows: 2 });
    const rows = rowsOf([
      ['Q: 1+1?', ' A: 2'],
      ['Q: color of sky?', ' A: blue'],
      ['Q: x', ' A: y'],
    ]);
    expect(fitsSegmentRun(rows.map(seqOf), fixed.segmentRun as SegmentRunShape)).toBe(true);
    await fixed.update({ rows, loss: crossEntropy, epochs: 1 });
    // All three in one row of up to 128 positions, which runs at the bucket of its fill (48); rows of the
    // bucket of the longest input (32) would have taken two.
    expect(keys.filter((k) => k.startsWith('train:'))).toEqual(['train:1x48p']);
    expect((await make('local', { segmentRows: true })).segmentRun).toBeUndefined();
    await expect(make('local', { segmentRows: { rowLength: 0 } })).rejects.toThrow(/rowLength/);
    await fixed.dispose();
  });

  it('the large-vocabulary graphs (head at scored tokens, vocabulary chunks) score and train like the dense ones', async () => {
    const keys: string[] = [];
    const memPatterns: (boolean | undefined)[] = [];
    const local = createLocalRunner();
    const recording: GraphRunner = {
      ...local,
      load(key, model, options) {
        if (!local.has(key)) memPatterns.push(options?.memPattern);
        return local.load(key, model, options);
      },
      run(key, feeds, options) {
        keys.push(key);
        return local.run(key, feeds, options);
      },
    };
    // A large epsilon makes AdamW's step about lr·gradient: Adam's sign-like first steps would amplify
    // float32 rounding differences of near-zero gradient entries.
    const optimizer = { lr: 1e-2, weightDecay: 0, eps: 1 };
    const dense = await make('local', { scoredHead: false, optimizer });
    const large = await make(recording, { scoredHead: true, optimizer });
    const rows = rowsOf([
      ['Q: 1+1?', ' A: 2'],
      ['Q: a longer question here?', ' A: a longer answer'],
      ['Q: color of sky?', ' A: blue'],
    ]);
    const before = (await dense.logprobs(rows)).flatMap((x) => Array.from(x));
    const got = (await large.logprobs(rows)).flatMap((x) => Array.from(x));
    got.forEach((lp, i) => {
      expect(Math.abs(lp - (before[i] as number))).toBeLessThan(1e-5);
    });
    // Two epochs of two mini-batches: the later ones are scored under the updated weights.
    for (const l of [dense, large])
      await l.update({ rows, loss: crossEntropy, epochs: 2, miniBatchRows: 2, entropyCoef: 0.01 });
    expectSameWeights(dense, large, 1e-7);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k) => /^(score|train):\d+x\d+s\d+$/.test(k))).toBe(true);
    // Their sessions run without onnxruntime's memory pattern (one fresh arena instead of two).
    expect(memPatterns.length).toBeGreaterThan(0);
    expect(memPatterns.every((m) => m === false)).toBe(true);
    await dense.dispose();
    await large.dispose();
  });

  it('takes log-probs at its logprobTemperature: the sampler reports what the graphs score and train', async () => {
    const { runner, keys } = recordingRunner();
    const cold = await make('local', { logprobTemperature: 0.5 });
    const large = await make(runner, { logprobTemperature: 0.5, scoredHead: true });
    const plain = await make('local');
    const prompts = ['hi', 'a longer prompt here'].map((content, i) => ({
      messages: [{ role: 'user' as const, content }],
      phase: 'play' as const,
      seed: i + 1,
      maxTokens: 10,
    }));
    // The generator's log-probs are at temperature 1, tempered on the host; the scoring graphs divide the
    // logits by 0.5 (dense and large-vocabulary heads): two paths to the same numbers.
    const sampled = await cold.policy.generate(prompts, { temperature: 0.5 });
    const rows = sampled.map((r) => ({ promptTokens: r.promptTokens, responseTokens: r.tokens }));
    const [dense, chunked, atOne] = await Promise.all([cold, large, plain].map((l) => l.logprobs(rows)));
    sampled.forEach((r, i) => {
      expect(r.tokens.length).toBeGreaterThan(0);
      for (const [j, lp] of r.logprobs.entries()) {
        expect(Math.abs(lp - (dense?.[i]?.[j] as number))).toBeLessThan(1e-5);
        expect(Math.abs(lp - (chunked?.[i]?.[j] as number))).toBeLessThan(1e-5);
      }
    });
    // Another distribution than temperature 1's.
    const gap = Math.max(
      ...sampled.flatMap((r, i) => r.logprobs.map((lp, j) => Math.abs(lp - (atOne?.[i]?.[j] as number)))),
    );
    expect(gap).toBeGreaterThan(1e-3);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k) => k.startsWith('model') || k.endsWith('@t0.5'))).toBe(true);
    // Training at that temperature raises the trained responses' log-probs at it.
    const trained = rowsOf([
      ['Q: 1+1?', ' A: 2'],
      ['Q: color of sky?', ' A: blue'],
    ]);
    const mean = async () => {
      const all = (await cold.logprobs(trained)).flatMap((x) => Array.from(x));
      return all.reduce((p, v) => p + v, 0) / all.length;
    };
    const before = await mean();
    await cold.update({ rows: trained, loss: crossEntropy, epochs: 10, miniBatchRows: 2 });
    expect(await mean()).toBeGreaterThan(before + 1);
    await expect(make('local', { logprobTemperature: 0 })).rejects.toThrow(
      /logprobTemperature must be a positive number/,
    );
    await Promise.all([cold, large, plain].map((l) => l.dispose()));
  });

  it('packed rows of sampled turns use the sampler log-probs (no scoring forward)', async () => {
    const { runner, scoring } = countingRunner();
    const l = await createOnnxLearner({ config, tokenizer, seed: 4, runner, microBatchRows: 2 });
    const messages: { role: 'user' | 'assistant'; content: string; tokens?: number[] }[] = [];
    const rows: LearnerRowV1[] = [];
    for (let t = 0; t < 2; t++) {
      messages.push({ role: 'user', content: `${t}` });
      const [r] = await l.policy.generate([
        { messages: [...messages], phase: 'play', seed: t, maxTokens: 3 },
      ]);
      if (r === undefined) throw new Error('no response');
      rows.push({
        promptTokens: r.promptTokens,
        responseTokens: r.tokens,
        oldLogprobs: r.logprobs,
        advantage: 1,
      });
      messages.push({ role: 'assistant', content: r.text, tokens: [...r.tokens] });
    }
    const packed = packRows(rows).rows;
    expect(packed.length).toBe(1);
    await l.update({ rows: packed, loss: crossEntropy });
    expect(scoring()).toBe(0);
    await l.dispose();
  });

  it('resumes from a checkpoint exactly like an uninterrupted run', async () => {
    const rows = rowsOf([
      ['ab', 'cd'],
      ['ef', 'gh'],
      ['ij', 'kl'],
    ]);
    const a = await make();
    await a.update({ rows, loss: crossEntropy, epochs: 2, miniBatchRows: 2 });
    await a.save(join(root, 'ck'));
    await a.update({ rows, loss: crossEntropy, epochs: 2, miniBatchRows: 2 });
    const b = await make();
    await b.load(join(root, 'ck'));
    await b.update({ rows, loss: crossEntropy, epochs: 2, miniBatchRows: 2 });
    expect(b.step).toBe(a.step);
    for (const [name, w] of a.weights)
      expect(Array.from(b.weights.get(name) as Float32Array)).toEqual(Array.from(w));
    await a.dispose();
    await b.dispose();
  });
});
