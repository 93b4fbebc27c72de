/**
 * One timed `importHfModel(dir)` (config, index, every shard's header and tensors into float32
 * arrays), then the SHA-256 of every tensor against the export's. Usage: `tsx ours.ts <dir>`; prints
 * a `LoadRun`.
 */

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { importHfModel } from '@mage-rl/learner';
import { EXPECTED_FILE, type LoadRun, sha256 } from './model';

const dir = process.argv[2] as string;
const expected = JSON.parse(await readFile(join(dir, EXPECTED_FILE), 'utf8')) as Record<string, string>;
const cpu0 = process.cpuUsage();
const started = performance.now();
const model = await importHfModel(dir);
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpu0);
let mismatches = Object.keys(expected).length - model.weights.size;
let bytes = 0;
for (const [name, w] of model.weights) {
  bytes += w.byteLength;
  if (expected[name] !== sha256(w)) mismatches++;
}
const run: LoadRun = {
  side: 'ours',
  ms,
  cpuMs: (cpu.user + cpu.system) / 1000,
  bytes,
  tensors: model.weights.size,
  mismatches,
  maxRssBytes: process.resourceUsage().maxRSS * 1024,
};
process.stdout.write(`${JSON.stringify(run)}\n`);
