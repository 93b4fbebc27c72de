/**
 * One side of the `vocab` bench, run in its own process so that its peak RSS is its own:
 * `tsx variant.ts <chunked|full> <updates>` builds a random Qwen3-shaped model (d_model 64, 2 layers,
 * vocabulary 151,936, tied embeddings, weights rounded to bf16 as an imported checkpoint's are), runs one
 * warm-up update and then `updates` timed ones, each on 16 rows of 64 prompt + 64 response tokens, with
 * a PPO-shaped loss twice: reading the current log-probs (the learner scores the rows first), and
 * flagged as not reading them (no scoring pass, as for on-policy rows the learner sampled itself). It
 * prints one JSON line.
 */

import type { LearnerRowV1, TokenLossFn } from '@mage-rl/core';
import { createRng } from '@mage-rl/core';
import {
  createByteTokenizer,
  createOnnxLearner,
  createWorkerRunner,
  type GraphRunner,
  initParams,
} from '@mage-rl/learner';
import { onPolicyLoss } from '../on-policy-loss';
import { benchModelConfig, QWEN3_VOCAB, toBf16 } from './model';

const mode = process.argv[2] ?? 'chunked';
const updates = Number(process.argv[3] ?? 3);
const vocab = Number(process.env.MAGE_BENCH_VOCAB ?? QWEN3_VOCAB);

const config = benchModelConfig(vocab, { eos: 2 });

/** Milliseconds spent in graph runs, by kind (`score`, `train`, …), to split an update's time. */
const runMs: Record<string, number> = {};
const worker = createWorkerRunner();
const runner: GraphRunner = {
  ...worker,
  async run(key, feeds, options) {
    const t0 = performance.now();
    const out = await worker.run(key, feeds, options);
    const kind = key.split(':')[0] ?? key;
    runMs[kind] = (runMs[kind] ?? 0) + performance.now() - t0;
    return out;
  },
};
const weights = initParams(config, createRng(1));
for (const w of weights.values()) toBf16(w);
const learner = await createOnnxLearner({
  config,
  tokenizer: createByteTokenizer(),
  weights,
  seed: 1,
  runner,
  ...(mode === 'full' ? { scoredHead: false } : {}),
});

const ROWS = 16;
const PROMPT = 64;
const RESPONSE = 64;
const rng = createRng(2);
const rows: LearnerRowV1[] = Array.from({ length: ROWS }, () => ({
  promptTokens: Array.from({ length: PROMPT }, () => rng.int(vocab)),
  responseTokens: Array.from({ length: RESPONSE }, () => rng.int(vocab)),
  oldLogprobs: new Array(RESPONSE).fill(-12),
  advantage: 1,
}));
/** A PPO-like loss: its weights depend on the current log-probs, so the learner scores first. */
const loss: TokenLossFn = (input) => {
  const n = input.logprobs.length;
  const weights = new Float32Array(n);
  let total = 0;
  for (let j = 0; j < n; j++) {
    const ratio = Math.exp(Math.min(5, (input.logprobs[j] ?? 0) - (input.oldLogprobs[j] ?? 0)));
    weights[j] = ratio / n;
    total -= ratio / n;
  }
  return { weights, loss: total, stats: { tokens: n } };
};

/** Milliseconds of `updates` updates with `fn` after one warm-up update, and the graph runs' split. */
async function timeUpdates(
  fn: TokenLossFn,
): Promise<{ times: number[]; cpuMs: number[]; runMs: Record<string, number> }> {
  const times: number[] = [];
  const cpuMs: number[] = [];
  for (let i = 0; i <= updates; i++) {
    if (i === 1) for (const k of Object.keys(runMs)) runMs[k] = 0;
    const t0 = performance.now();
    // CPU time of the process (all threads: onnxruntime's pool, the worker): other processes on the
    // same cores disturb it much less than wall time.
    const c0 = process.cpuUsage();
    await learner.update({ rows, loss: fn, entropyCoef: 0.001 });
    const c = process.cpuUsage(c0);
    if (i > 0) {
      times.push(performance.now() - t0);
      cpuMs.push((c.user + c.system) / 1000);
    }
  }
  return { times, cpuMs, runMs: { ...runMs } };
}

const scored = await timeUpdates(loss);
const fresh = await timeUpdates(onPolicyLoss);
const after = await learner.logprobs(rows.slice(0, 2));
await learner.dispose();
process.stdout.write(
  `${JSON.stringify({
    mode,
    scored,
    fresh,
    tokens: ROWS * RESPONSE,
    positions: ROWS * (PROMPT + RESPONSE),
    logprob0: after[0]?.[0],
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  })}\n`,
);
