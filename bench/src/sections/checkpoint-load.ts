/**
 * Loading a checkpoint of real size: Qwen3-0.6B's shape exported by `exportHfModel` in float32 shards
 * (2.4 GB, written once by `src/checkpoint-load/write.ts`), loaded by `importHfModel` and by PyTorch
 * (`bench/pytorch/safetensors_load.py`: headers parsed by hand, each tensor `readinto` a `torch.empty`;
 * skipped with a message when no Python has torch), alternately, each load in its own process; every
 * load's tensors are checked against the exported weights' SHA-256. The files are in the page cache
 * after the first load, so this measures parsing, allocation and copying rather than the disk.
 */

import { fileURLToPath } from 'node:url';
import { type LoadRun, loadDir, SHARD_BYTES } from '../checkpoint-load/model';
import {
  type BenchResult,
  type BenchSection,
  findTorchPython,
  runJsonChild,
  runJsonCommand,
} from '../harness';

const ROUNDS = Number(process.env.MAGE_BENCH_LOAD_ROUNDS ?? 3);
const script = (name: string) => fileURLToPath(new URL(`../checkpoint-load/${name}`, import.meta.url));
const TORCH_SCRIPT = fileURLToPath(new URL('../../pytorch/safetensors_load.py', import.meta.url));

const gib = (bytes: number) => (bytes / 2 ** 30).toFixed(2);
const secs = (runs: readonly LoadRun[]) => runs.map((r) => (r.ms / 1000).toFixed(2)).join(' / ');

function loadRate(label: string, runs: readonly LoadRun[]): BenchResult {
  const best = runs.reduce((a, b) => (b.ms < a.ms ? b : a));
  const bad = runs.reduce((p, r) => p + r.mismatches, 0);
  return {
    name: `load 0.6B f32 shards (${label})`,
    value: best.bytes / 2 ** 20 / (best.ms / 1000),
    unit: 'MiB/s',
    note: `best of ${runs.length}: ${(best.ms / 1000).toFixed(2)} s (${secs(runs)} s; CPU ${(best.cpuMs / 1000).toFixed(2)} s); ${best.tensors} tensors, ${gib(best.bytes)} GiB; ${bad === 0 ? 'identical to the export' : `${bad} TENSORS DIFFER`}; peak RSS ${gib(best.maxRssBytes)} GiB`,
  };
}

const section: BenchSection = {
  title: 'checkpoint load: Qwen3-0.6B shape, float32 shards, importHfModel vs PyTorch',
  async run() {
    const dir = loadDir();
    const written = await runJsonChild<{ files?: string[]; writeMs?: number; bytes?: number }>(
      script('write.ts'),
      [dir],
    );
    const results: BenchResult[] = [];
    if (written.writeMs !== undefined && written.bytes !== undefined) {
      results.push({
        name: 'export 0.6B f32 shards (exportHfModel)',
        value: written.bytes / 2 ** 20 / (written.writeMs / 1000),
        unit: 'MiB/s',
        note: `${(written.writeMs / 1000).toFixed(1)} s, files fsynced; ${written.files?.join(', ')} (max shard ${SHARD_BYTES} bytes)`,
      });
    }
    const python = findTorchPython();
    if (python === undefined)
      process.stderr.write('checkpoint-load: no Python with torch; PyTorch side skipped\n');
    const ours: LoadRun[] = [];
    const torch: LoadRun[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      ours.push(await runJsonChild<LoadRun>(script('ours.ts'), [dir]));
      if (python !== undefined) torch.push(await runJsonCommand<LoadRun>(python, [TORCH_SCRIPT, dir]));
    }
    results.push(loadRate('ours, importHfModel', ours));
    if (torch.length > 0) {
      results.push(loadRate('PyTorch, readinto', torch));
      const bestOf = (runs: readonly LoadRun[]) => Math.min(...runs.map((r) => r.ms));
      results.push({
        name: 'load time ours / PyTorch',
        value: bestOf(ours) / bestOf(torch),
        unit: '×',
        target: { value: 2, comparison: '<=' },
        note: `best of ${ROUNDS} each, alternating in one run`,
      });
    }
    return results;
  },
};

export default section;
