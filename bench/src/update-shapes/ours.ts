/**
 * Our side of the `update-shapes` bench: `tsx ours.ts <capture file> <iterations>` loads the captured
 * recipe's warm start as `mage train` does (the learner on the worker runner, the KL reference
 * inference-only on a worker runner of its own) and runs one warm-up and `iterations` timed update
 * iterations on the captured rows. An iteration is what the trainer's update phase does after a rollout:
 * `learner.update` with the PPO token loss, the recipe's mini-batches, epochs and entropy bonus, and the
 * reference's log-probs of each mini-batch's rows computed while the one before trains
 * (`referenceLogprobs`). The padded path scores them all first on the local runner, as before. Every iteration starts from the same state: the learner loads a
 * checkpoint of itself saved before the first one (weights, a fresh optimizer, its RNG: the same
 * shuffle), untimed; its sessions stay compiled, as they do from one training iteration to the next.
 * The session channels attribute the time to the reference's scoring runs, the update's scoring runs
 * (current log-probs; only on the padded path, so the default path's scoring runs are the reference's)
 * and its training runs (forward + backward). Prints one JSON line.
 */

import { subscribe } from 'node:diagnostics_channel';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PackedRowV1, TokenLossFn } from '@mage-rl/core';
import { ppoTokenLoss } from '@mage-rl/gigpo';
import {
  loadModel,
  SESSION_LOAD_CHANNEL,
  SESSION_RUN_CHANNEL,
  type SessionLoadEvent,
  type SessionRunEvent,
} from '@mage-rl/learner';
import { memoryLimitsOfConfig } from '@mage-rl/trainer/internals';
import type { CapturedUpdate } from './recipes';

const [file, countArg, pathArg] = process.argv.slice(2) as [string, string | undefined, string | undefined];
// `padded`: the update path before the learner computed PPO weights in its training pass and packed
// sequences into segment rows — one padded sequence per row, a scoring pass before each mini-batch.
const padded = pathArg === 'padded';
const pathOptions = padded ? { segmentRows: false } : {};
const count = Number(countArg ?? 3);
const cap = JSON.parse(await readFile(file, 'utf8')) as CapturedUpdate;

type Pass = 'reference' | 'score' | 'train';
interface PassTotals {
  runs: number;
  ms: number;
  positions: number;
}
const emptyPasses = (): Record<Pass, PassTotals> => ({
  reference: { runs: 0, ms: 0, positions: 0 },
  score: { runs: 0, ms: 0, positions: 0 },
  train: { runs: 0, ms: 0, positions: 0 },
});
let phase: 'reference' | 'update' = 'reference';
let passes = emptyPasses();
let compiles = { count: 0, ms: 0 };
subscribe(SESSION_RUN_CHANNEL, (message) => {
  const e = message as SessionRunEvent;
  const m = /(?:^|:)(score|train):(\d+)x(\d+)/.exec(e.key);
  if (m === null) return;
  const pass: Pass = phase === 'reference' || (!padded && m[1] === 'score') ? 'reference' : (m[1] as Pass);
  const p = passes[pass];
  p.runs++;
  p.ms += e.ms;
  p.positions += Number(m[2]) * Number(m[3]);
});
subscribe(SESSION_LOAD_CHANNEL, (message) => {
  const e = message as SessionLoadEvent;
  compiles.count++;
  compiles.ms += e.buildMs + e.compileMs;
});

const l = cap.learner;
const memory = memoryLimitsOfConfig({ memory: { budget: l.memoryBudget } });
const temperature = l.logprobTemperature === undefined ? {} : { logprobTemperature: l.logprobTemperature };
const loadStart = performance.now();
const learner = await loadModel(cap.warmStart, {
  seed: l.seed,
  optimizer: l.optimizer,
  memory,
  ...temperature,
  ...pathOptions,
});
const reference = await loadModel(cap.warmStart, {
  runner: padded ? 'local' : 'worker',
  lora: false,
  memory,
  inferenceOnly: true,
  ...temperature,
  ...pathOptions,
});
const loadMs = performance.now() - loadStart;
const tmp = await mkdtemp(join(tmpdir(), 'mage-bench-update-shapes-'));
const start = join(tmp, 'start');
await learner.save(start);

// The rows as the trainer made them, without their reference log-probs (each iteration scores them).
const rows: PackedRowV1[] = cap.rows.map((r) => ({
  tokens: r.tokens,
  spans: r.spans.map(({ refLogprobs: _, ...s }) => s),
}));
const ppo = ppoTokenLoss(cap.loss);
let miniBatchLosses: number[] = [];
// The trainer's loss with its properties (`weightForm`: the learner then computes the PPO weights in
// its training pass; not on the padded path), recording each mini-batch's loss.
const loss: TokenLossFn = Object.assign(
  (input: Parameters<TokenLossFn>[0]) => {
    const out = ppo(input);
    miniBatchLosses.push(out.loss);
    return out;
  },
  padded ? {} : ppo,
);

const iterations: Record<string, unknown>[] = [];
let refMaxAbs = 0;
for (let i = 0; i <= count; i++) {
  await learner.load(start);
  passes = emptyPasses();
  compiles = { count: 0, ms: 0 };
  miniBatchLosses = [];
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  phase = 'reference';
  const ref = padded ? await reference.logprobs(rows) : [];
  const t1 = performance.now();
  phase = 'update';
  const withRef: PackedRowV1[] = ref.map((_, k) => {
    const r = rows[k] as PackedRowV1;
    let o = 0;
    const lp = ref[k] ?? new Float32Array(0);
    return {
      tokens: r.tokens,
      spans: r.spans.map((s) => {
        const refLogprobs = Array.from(lp.subarray(o, o + s.length));
        o += s.length;
        return { ...s, refLogprobs };
      }),
    };
  });
  const result = await learner.update({
    ...(padded ? { rows: withRef } : { rows, referenceLogprobs: (r) => reference.logprobs(r) }),
    loss,
    epochs: cap.request.epochs,
    entropyCoef: cap.request.entropyCoef,
    ...(cap.request.miniBatchRows === null ? {} : { miniBatchRows: cap.request.miniBatchRows }),
  });
  const t2 = performance.now();
  const cpu = process.cpuUsage(c0);
  if (i === 0) {
    // Untimed on the default path: the reference's log-probs of all rows, checked against the trainer's.
    const all = padded ? ref : await reference.logprobs(rows);
    cap.rows.forEach((r, k) => {
      const lp = all[k] ?? new Float32Array(0);
      let o = 0;
      for (const s of r.spans)
        for (let j = 0; j < s.length; j++)
          refMaxAbs = Math.max(
            refMaxAbs,
            Math.abs((lp[o++] ?? Number.NaN) - (s.refLogprobs[j] ?? Number.NaN)),
          );
    });
  }
  iterations.push({
    warmUp: i === 0,
    ms: t2 - t0,
    cpuMs: (cpu.user + cpu.system) / 1000,
    // On the default path the reference runs inside the update (its passes say how long).
    ...(padded ? { referenceMs: t1 - t0, updateMs: t2 - t1 } : { phasesMs: { update: t2 - t1 } }),
    steps: result.steps,
    skippedSteps: result.skippedSteps,
    tokens: result.tokens,
    loss: result.loss,
    miniBatchLosses,
    passes,
    compiles,
  });
}
await learner.dispose();
await reference.dispose();
await rm(tmp, { recursive: true, force: true });
process.stdout.write(
  `${JSON.stringify({
    side: padded ? 'ours, padded' : 'ours',
    loadMs,
    refMaxAbsVsTrainer: refMaxAbs,
    iterations,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  })}\n`,
);
