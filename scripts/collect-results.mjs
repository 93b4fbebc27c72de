#!/usr/bin/env node
// Copies what a `mage experiment` directory needs to be read and re-aggregated later — experiment.json,
// results.json, report.md, the charts, every evaluation record, and per run its config, metrics and
// training charts (no checkpoints) — into a folder meant to be committed (docs/results/<name>).
//
//   node scripts/collect-results.mjs <experiment-dir> <dest-dir>
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const [src, dest] = process.argv.slice(2);
if (!src || !dest || !existsSync(join(src, 'experiment.json'))) {
  process.stderr.write('usage: node scripts/collect-results.mjs <experiment-dir> <dest-dir>\n');
  process.exit(2);
}
rmSync(dest, { recursive: true, force: true });
mkdirSync(dest, { recursive: true });
const top = (f) => f.endsWith('.json') || f.endsWith('.md') || f.endsWith('.png') || f.endsWith('.svg');
for (const f of readdirSync(src).filter(top)) cpSync(join(src, f), join(dest, f));
if (existsSync(join(src, 'evals'))) cpSync(join(src, 'evals'), join(dest, 'evals'), { recursive: true });
const runFiles = [
  'config.json',
  'metrics.jsonl',
  'experiment-timing.json',
  'credit.png',
  'training-curves.png',
];
for (const run of existsSync(join(src, 'runs')) ? readdirSync(join(src, 'runs')) : []) {
  mkdirSync(join(dest, 'runs', run), { recursive: true });
  for (const f of runFiles) {
    if (existsSync(join(src, 'runs', run, f))) cpSync(join(src, 'runs', run, f), join(dest, 'runs', run, f));
  }
}
process.stdout.write(`collected ${src} into ${dest}\n`);
