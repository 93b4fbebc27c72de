/**
 * Our side of the `qwen3` bench, one process per measurement so that its peak RSS is its own:
 * `tsx ours.ts <dir> update <updates>` loads the directory the way `mage train` does (`loadModel`: LoRA
 * rank 8, alpha 16 on q/k/v/o for a model of this size), scores the rows once (the correctness check's
 * log-probs), then runs one warm-up and `updates` timed `update` calls; `tsx ours.ts <dir> decode
 * <rounds>` decodes greedily at batch 1 and 16 with the learner's generator on the base weights (the
 * model transformers.js and PyTorch decode), which its worker runner takes over from the import (held
 * once). Prints one JSON line.
 */

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LearnerRowV1 } from '@mage-rl/core';
import {
  createGenerator,
  createWorkerRunner,
  importHfModel,
  loadModel,
  paramSpecs,
  type TensorValue,
} from '@mage-rl/learner';
import { onPolicyLoss } from '../on-policy-loss';
import type { BenchInputs } from './model';

const [dir, mode, countArg] = process.argv.slice(2) as [string, 'update' | 'decode', string | undefined];
const count = Number(countArg ?? 2);
const inputs = JSON.parse(await readFile(join(dir, 'inputs.json'), 'utf8')) as BenchInputs;
const peakRss = () => process.resourceUsage().maxRSS * 1024;

async function update(): Promise<Record<string, unknown>> {
  const t0 = performance.now();
  const learner = await loadModel(dir, {
    seed: 1,
    optimizer: inputs.optimizer,
    lora: { rank: inputs.lora.rank, alpha: inputs.lora.alpha },
  });
  const loadMs = performance.now() - t0;
  const rows: LearnerRowV1[] = inputs.rows.map((r) => ({
    promptTokens: r.prompt,
    responseTokens: r.response,
    oldLogprobs: new Array(r.response.length).fill(0),
    advantage: 1,
  }));
  const s0 = performance.now();
  const logprobs = (await learner.logprobs(rows)).map((x) => Array.from(x));
  const scoreMs = performance.now() - s0;
  const times: number[] = [];
  const cpuMs: number[] = [];
  const losses: number[] = [];
  for (let i = 0; i <= count; i++) {
    const t = performance.now();
    const c0 = process.cpuUsage();
    const result = await learner.update({ rows, loss: onPolicyLoss, entropyCoef: inputs.entropyCoef });
    const c = process.cpuUsage(c0);
    losses.push(result.loss);
    if (i > 0) {
      times.push(performance.now() - t);
      cpuMs.push((c.user + c.system) / 1000);
    }
  }
  await learner.dispose();
  return {
    tokens: rows.length * (inputs.rows[0]?.response.length ?? 0),
    positions: rows.length * ((inputs.rows[0]?.prompt.length ?? 0) + (inputs.rows[0]?.response.length ?? 0)),
    loadMs,
    scoreMs,
    times,
    cpuMs,
    losses,
    logprobs,
    maxRssBytes: peakRss(),
  };
}

async function decode(): Promise<Record<string, unknown>> {
  const { config, weights } = await importHfModel(dir);
  // The learner's runner: sessions in a worker thread, weights uploaded once as persistent feeds and
  // handed over (transferred, as an inference-only learner does): the imported arrays are detached, so
  // the process holds the weights once.
  const runner = createWorkerRunner();
  const feeds: Record<string, TensorValue> = {};
  for (const s of paramSpecs(config))
    feeds[s.name] = { data: weights.get(s.name) as Float32Array, dims: s.shape };
  await runner.setPersistent(feeds, { transfer: true });
  const generator = createGenerator({ config, runner });
  const out: Record<string, unknown> = {};
  for (const batch of [1, 16]) {
    const prompts = inputs.decode.prompts.slice(0, batch);
    let tokens: number[] = [];
    const times: number[] = [];
    for (let i = 0; i <= count; i++) {
      const t = performance.now();
      const result = await generator.generate({
        prompts,
        seeds: prompts.map((_, j) => j),
        maxTokens: inputs.decode.newTokens,
        sampling: { temperature: 0, topK: 0, topP: 1 },
      });
      if (i > 0) times.push(performance.now() - t);
      tokens = [...(result[0]?.tokens ?? [])];
    }
    out[`batch${batch}`] = { times, tokens, newTokens: batch * inputs.decode.newTokens };
  }
  await runner.dispose();
  return { ...out, maxRssBytes: peakRss() };
}

const result = mode === 'update' ? await update() : await decode();
process.stdout.write(`${JSON.stringify({ mode, ...result })}\n`);
