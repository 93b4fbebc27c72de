/**
 * Where a warm-start training run's time goes, operator by operator: mage-tiny's training graph on
 * segment rows (the laptop warm start's usual run, 4 rows of 512 positions, two sequences per row)
 * profiled by onnxruntime, beside the model FLOP rate and a lone 1024³ GEMM measured in the same process.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng } from '@mage-rl/core';
import {
  buildTrainingGraph,
  createMageTinyConfig,
  initParams,
  type ModelConfig,
  ortSessionOptions,
  paramSpecs,
  serializeGraph,
} from '@mage-rl/learner';
import ort from 'onnxruntime-node';
import type { BenchResult, BenchSection } from '../harness';
import { gemmRate, trainingFlops } from './learner';

const ROWS = Number(process.env.MAGE_BENCH_TRAIN_OPS_ROWS ?? 4);
const LENGTH = Number(process.env.MAGE_BENCH_TRAIN_OPS_LENGTH ?? 512);
const RUNS = Number(process.env.MAGE_BENCH_TRAIN_OPS_RUNS ?? 5);
/** The laptop Tic-Tac-Toe corpus's vocabulary. */
const VOCAB = 222;

interface ProfileEvent {
  readonly cat: string;
  readonly name: string;
  readonly ts: number;
  readonly dur: number;
  readonly args?: { readonly op_name?: string };
}

/** The training graph's feeds: random weights, every row two sequences of half its length. */
function feedsOf(config: ModelConfig, session: ort.InferenceSession) {
  const B = ROWS;
  const T = LENGTH;
  const M = B * T;
  const half = Math.floor(T / 2);
  const feeds: Record<string, ort.Tensor> = {};
  const weights = initParams(config, createRng('train-ops'));
  for (const spec of paramSpecs(config)) {
    if (session.inputNames.includes(spec.name)) {
      feeds[spec.name] = new ort.Tensor('float32', weights.get(spec.name) as Float32Array, [...spec.shape]);
    }
  }
  const ids = BigInt64Array.from({ length: M }, (_, i) => BigInt(i % VOCAB));
  const positions = BigInt64Array.from({ length: M }, (_, i) => BigInt((i % T) % half));
  const mask = new Float32Array(B * T * T).fill(-1e9);
  for (let row = 0; row < B * T; row++) {
    const i = row % T;
    const from = i < half ? 0 : half;
    mask.fill(0, row * T + from, row * T + i + 1);
  }
  Object.assign(feeds, {
    input_ids: new ort.Tensor('int64', ids, [B, T]),
    targets: new ort.Tensor('int64', ids, [M]),
    weights: new ort.Tensor('float32', new Float32Array(M).fill(1 / M), [M]),
    entropy_weights: new ort.Tensor('float32', new Float32Array(M), [M]),
    position_ids: new ort.Tensor('int64', positions, [B, T]),
    attention_mask: new ort.Tensor('float32', mask, [B, 1, 1, T, T]),
  });
  return feeds;
}

/** Kernel microseconds per operator type over the profiled runs after the first (the warm-up). */
function kernelTimes(events: readonly ProfileEvent[]): { byOp: Map<string, number>; runs: number } {
  const runs = events
    .filter((e) => e.cat === 'Session' && e.name === 'model_run')
    .sort((a, b) => a.ts - b.ts);
  const warm = runs[0];
  const after = warm === undefined ? 0 : warm.ts + warm.dur;
  const byOp = new Map<string, number>();
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time') || e.ts < after) continue;
    const op = e.args?.op_name ?? '?';
    byOp.set(op, (byOp.get(op) ?? 0) + e.dur);
  }
  return { byOp, runs: Math.max(1, runs.length - 1) };
}

const section: BenchSection = {
  title: `Warm-start training run by operator (mage-tiny, ${ROWS} × ${LENGTH} segment rows)`,
  async run() {
    const config = createMageTinyConfig(VOCAB);
    const graph = serializeGraph(
      buildTrainingGraph({ config, batch: ROWS, seqLen: LENGTH, segments: true }).graph,
    );
    const prefix = `mage-bench-train-ops-${process.pid}`;
    // The session options of the learner's training runs (the worker runner flushes denormals), with
    // onnxruntime's profiler on.
    const session = await ort.InferenceSession.create(graph, {
      ...ortSessionOptions({ flushDenormals: true }),
      enableProfiling: true,
      profileFilePrefix: join(tmpdir(), prefix),
    });
    const feeds = feedsOf(config, session);
    const wall: number[] = [];
    for (let i = 0; i <= RUNS; i++) {
      const start = performance.now();
      await session.run(feeds);
      if (i > 0) wall.push(performance.now() - start);
    }
    session.endProfiling();
    // onnxruntime-node does not return the profile's name: it is the prefix and a timestamp.
    const name = readdirSync(tmpdir()).find((f) => f.startsWith(prefix));
    if (name === undefined) throw new Error(`onnxruntime wrote no profile ${prefix}* in ${tmpdir()}`);
    const file = join(tmpdir(), name);
    const events = JSON.parse(readFileSync(file, 'utf8')) as ProfileEvent[];
    rmSync(file, { force: true });
    await session.release();
    const { byOp, runs } = kernelTimes(events);
    const total = [...byOp.values()].reduce((a, b) => a + b, 0);
    const bestMs = Math.min(...wall);
    const flops = trainingFlops(config, ROWS, LENGTH);
    const gemm = await gemmRate();
    const matmul = ['MatMul', 'FusedMatMul', 'Gemm'].reduce((s, op) => s + (byOp.get(op) ?? 0), 0);
    const results: BenchResult[] = [
      { name: 'one training run (best, profiler on)', value: bestMs, unit: 'ms', note: `${RUNS} runs` },
      { name: 'trained positions', value: (ROWS * LENGTH * 1000) / bestMs, unit: 'tokens/s' },
      { name: 'model FLOP rate', value: (flops * 1000) / bestMs / 1e9, unit: 'GFLOP/s' },
      { name: 'lone 1024³ GEMM, same process', value: gemm / 1e9, unit: 'GFLOP/s' },
      {
        name: 'matrix products (MatMul, FusedMatMul, Gemm)',
        value: (100 * matmul) / total,
        unit: '% of kernel time',
      },
    ];
    for (const [op, us] of [...byOp].sort((a, b) => b[1] - a[1]).slice(0, 10)) {
      results.push({
        name: `  ${op}`,
        value: us / runs / 1000,
        unit: 'ms per run',
        note: `${((100 * us) / total).toFixed(1)}% of kernel time`,
      });
    }
    return results;
  },
};

export default section;
