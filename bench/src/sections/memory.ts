/**
 * Peak memory of the laptop preset's two long commands, each in its own process as a user runs them:
 * `mage pretrain --preset laptop` (Tic-Tac-Toe warm start) and `mage train --preset laptop` for a few
 * iterations on that warm start (rollout, update, evaluation). The peaks are the processes' own records
 * (`peakRssBytes` of the warm-start record; `timing.peakRssBytes` of every metrics.jsonl line), so the
 * numbers are what a run reports. `MAGE_BENCH_MODEL=<mage-tiny dir>` skips the pretraining;
 * `MAGE_BENCH_MEMORY_ITERATIONS` sets the training iterations (default 2).
 */

import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResult, BenchSection } from '../harness';

const LIMIT_GB = 2.5;
const ITERATIONS = Number(process.env.MAGE_BENCH_MEMORY_ITERATIONS ?? 2);

/** Runs `mage <args>` from source (the bench's tsx loader and conditions); resolves with seconds taken. */
function mage(args: readonly string[]): Promise<number> {
  const bin = fileURLToPath(new URL('../../../packages/cli/src/bin.ts', import.meta.url));
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, bin, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err = (err + d.toString()).slice(-4000);
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve((performance.now() - start) / 1000);
      else reject(new Error(`mage ${args.join(' ')} exited with ${code}: ${err}`));
    });
  });
}

const gb = (bytes: number) => bytes / 1e9;

async function pretrainPeak(dir: string): Promise<{ peak: number; seconds: number }> {
  const seconds = await mage(['pretrain', '--env', 'tictactoe', '--preset', 'laptop', '--out', dir]);
  const manifest = JSON.parse(await readFile(join(dir, 'mage-tiny.json'), 'utf8')) as {
    warmStart: { peakRssBytes: number };
  };
  return { peak: manifest.warmStart.peakRssBytes, seconds };
}

async function trainPeaks(model: string, runDir: string) {
  const seconds = await mage([
    ...['train', '--env', 'tictactoe', '--method', 'mage', '--preset', 'laptop'],
    ...['--model', model, '--run-dir', runDir, '--iterations', String(ITERATIONS)],
  ]);
  const lines = (await readFile(join(runDir, 'metrics.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; timing: { peakRssBytes: number } });
  const peakOf = (type: string) =>
    Math.max(0, ...lines.filter((l) => l.type === type).map((l) => l.timing.peakRssBytes));
  return { seconds, rollout: peakOf('rollout'), update: peakOf('update'), eval: peakOf('eval') };
}

const section: BenchSection = {
  title: `Peak RSS of the laptop preset: pretrain and ${ITERATIONS} MAGE iterations (target ≤ ${LIMIT_GB} GB)`,
  async run() {
    const tmp = await mkdtemp(join(tmpdir(), 'mage-bench-memory-'));
    try {
      const results: BenchResult[] = [];
      let model = process.env.MAGE_BENCH_MODEL;
      if (model === undefined) {
        model = join(tmp, 'warm-start');
        const p = await pretrainPeak(model);
        results.push({
          name: 'mage pretrain --preset laptop',
          value: gb(p.peak),
          unit: 'GB',
          target: { value: LIMIT_GB, comparison: '<=' },
          note: `${p.seconds.toFixed(0)} s`,
        });
      }
      const t = await trainPeaks(model, join(tmp, 'run'));
      results.push({
        name: `mage train --preset laptop --iterations ${ITERATIONS}`,
        value: gb(Math.max(t.rollout, t.update, t.eval)),
        unit: 'GB',
        target: { value: LIMIT_GB, comparison: '<=' },
        note: `after rollout ${gb(t.rollout).toFixed(2)}, update ${gb(t.update).toFixed(2)}, evaluation ${gb(t.eval).toFixed(2)} GB; ${t.seconds.toFixed(0)} s`,
      });
      return results;
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  },
};
export default section;
