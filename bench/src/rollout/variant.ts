/**
 * One side of the `rollout` bench, run in its own process so that its peak RSS is its own:
 * `tsx variant.ts <prefixCacheBytes> <batches>` plays 1 warm-up + `batches` laptop-preset rollout
 * batches of Tic-Tac-Toe (mage-tiny: random weights, or the warm start in MAGE_BENCH_MODEL) and prints
 * one JSON line with the timings, the generator's counters, a hash of every sampled token and maxRSS.
 */

import { createHash } from 'node:crypto';
import { runMetaEpisodes } from '@mage-rl/core';
import {
  createMageTinyConfig,
  createOnnxLearner,
  createWorkerRunner,
  type GraphRunner,
  loadMageTiny,
  type OnnxLearner,
} from '@mage-rl/learner';
import { resolveTrainConfig, trainingOptionsOf } from '@mage-rl/recipes';
import { buildMageTinyTokenizer } from '@mage-rl/trainer/internals';

const cacheBytes = Number(process.argv[2] ?? 0);
const batches = Number(process.argv[3] ?? 2);

/** Sessions compiled (first loads and reloads after eviction) and the time spent compiling them. */
const compiled = { sessions: 0, ms: 0 };
const worker = createWorkerRunner();
const runner: GraphRunner = {
  ...worker,
  async load(key, model, options) {
    if (worker.has(key)) return worker.load(key, model, options);
    const t0 = performance.now();
    await worker.load(key, model, options);
    compiled.sessions++;
    compiled.ms += performance.now() - t0;
  },
};

/** mage-tiny with the prefix cache budget of this side: the warm start when given, else random weights. */
async function learnerOf(): Promise<OnnxLearner> {
  const dir = process.env.MAGE_BENCH_MODEL;
  if (dir !== undefined && dir !== '') {
    const loaded = await loadMageTiny(dir, { runner: 'local' });
    const { config, tokenizer, weights } = loaded;
    await loaded.dispose();
    return createOnnxLearner({
      id: 'mage-tiny',
      config,
      tokenizer,
      weights,
      runner,
      prefixCacheBytes: cacheBytes,
    });
  }
  const tokenizer = buildMageTinyTokenizer([]);
  const config = createMageTinyConfig(tokenizer.vocabSize, {
    bosTokenId: tokenizer.encode('<bos>')[0] ?? 2,
    eosTokenId: tokenizer.eosTokenIds[0] ?? 3,
  });
  return createOnnxLearner({
    id: 'mage-tiny',
    config,
    tokenizer,
    seed: 1,
    runner,
    prefixCacheBytes: cacheBytes,
  });
}

const learner = await learnerOf();
const config = resolveTrainConfig({}, { preset: 'laptop', env: 'tictactoe', method: 'mage', seed: 1 });
const o = trainingOptionsOf(config, { learner });
const hash = createHash('sha256');
const times: number[] = [];
let rows = 0;
let first = { promptTokens: 0, reusedTokens: 0, prefillMs: 0, decodeTokens: 0, decodeMs: 0 };
for (let i = 0; i <= batches; i++) {
  if (i === 1) {
    first = { ...learner.generatorStats() };
    compiled.sessions = 0;
    compiled.ms = 0;
  }
  const start = performance.now();
  const batch = await runMetaEpisodes({
    env: o.env,
    policy: learner.policy,
    memory: o.memory,
    ...(o.population ? { population: o.population } : {}),
    ...(o.makeOpponent ? { makeOpponent: o.makeOpponent } : {}),
    ...o.rollout,
    groupSize: config.rollout.groupSize,
    seed: config.seed,
    iteration: i,
  });
  if (i === 0) continue;
  times.push(performance.now() - start);
  rows += batch.rows.length;
  for (const r of batch.rows) hash.update(`${r.responseTokens.join(',')};`);
}
const s = learner.generatorStats();
await learner.dispose();
await worker.dispose();
process.stdout.write(
  `${JSON.stringify({
    times,
    rows,
    promptTokens: s.promptTokens - first.promptTokens,
    reusedTokens: s.reusedTokens - first.reusedTokens,
    prefillMs: s.prefillMs - first.prefillMs,
    decodeTokens: s.decodeTokens - first.decodeTokens,
    decodeMs: s.decodeMs - first.decodeMs,
    compiledSessions: compiled.sessions,
    compileMs: compiled.ms,
    tokensHash: hash.digest('hex').slice(0, 16),
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  })}\n`,
);
