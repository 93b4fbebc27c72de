/**
 * `pnpm bench demo`: where the demo's time goes. Runs the demo's pipeline after install and build
 * (`mage pretrain`, then `mage experiment` with the warm start and MAGE, evaluated with reflection notes
 * and with no memory) in a child process of its own, and prints one row per stage: wall and CPU time,
 * peak RSS, and the onnxruntime sessions compiled and run (`src/demo/`). Environment:
 *
 * - `MAGE_BENCH_DEMO_PRESET` — run preset (default `laptop`, the demo's);
 * - `MAGE_BENCH_DEMO_SET` — config values over the preset, `path=value` separated by spaces (default
 *   `warmStart.epochs=2 warmStart.batchTokens=0 train.iterations=2`: the demo's warm start, half its
 *   iterations; `''` runs the preset as it is);
 * - `MAGE_BENCH_DEMO_MODEL` — a warm-start directory to use instead of pretraining one;
 * - `MAGE_BENCH_DEMO_METHODS` — trained methods, comma-separated (default `mage`).
 */

import { fileURLToPath } from 'node:url';
import type { DemoProfile, DemoProfileOptions } from '../demo/profile-demo';
import { stageTable } from '../demo/stage-profiler';
import { type BenchResult, type BenchSection, runJsonChild } from '../harness';

/** `a.b=1 c=x` → `{ a: { b: 1 }, c: 'x' }` (numbers and booleans parsed, anything else a string). */
export function parseSets(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const assignment of text.split(/\s+/).filter((a) => a.length > 0)) {
    const eq = assignment.indexOf('=');
    if (eq <= 0) throw new Error(`MAGE_BENCH_DEMO_SET: '${assignment}' is not path=value`);
    const keys = assignment.slice(0, eq).split('.');
    const raw = assignment.slice(eq + 1);
    const value =
      raw === 'true' ? true : raw === 'false' ? false : Number.isFinite(Number(raw)) ? Number(raw) : raw;
    let node = out;
    for (const key of keys.slice(0, -1)) {
      node[key] ??= {};
      node = node[key] as Record<string, unknown>;
    }
    node[keys.at(-1) as string] = value;
  }
  return out;
}

const preset = (process.env.MAGE_BENCH_DEMO_PRESET ?? 'laptop') as DemoProfileOptions['preset'];
const sets =
  process.env.MAGE_BENCH_DEMO_SET ?? 'warmStart.epochs=2 warmStart.batchTokens=0 train.iterations=2';
const model = process.env.MAGE_BENCH_DEMO_MODEL;
const methods = (process.env.MAGE_BENCH_DEMO_METHODS ?? 'mage').split(',');

const section: BenchSection = {
  title: `The demo's pipeline stage by stage (preset ${preset}${sets ? `, ${sets}` : ''}${model ? ', given warm start' : ''})`,
  async run() {
    const options: Omit<DemoProfileOptions, 'profiler' | 'log'> = {
      preset,
      methods,
      overrides: parseSets(sets),
      ...(model === undefined ? {} : { model }),
    };
    const child = fileURLToPath(new URL('../demo/child.ts', import.meta.url));
    const profile = await runJsonChild<DemoProfile>(child, [JSON.stringify(options)]);
    process.stdout.write(`\n${stageTable(profile.stages)}\n\n`);
    for (const e of profile.evaluations) {
      process.stdout.write(
        `${e.label} (${e.memory}): in-domain pass@k ${e.passAtK.map((p) => `${(100 * p).toFixed(1)}%`).join(' → ')}\n`,
      );
    }
    const results: BenchResult[] = profile.stages.map((s) => ({
      name: s.stage,
      value: s.wallSeconds,
      unit: 's',
      note: `CPU ${s.cpuSeconds.toFixed(1)} s, peak ${(s.peakRssBytes / 1e9).toFixed(2)} GB, ${s.compiles} sessions compiled (${s.compileSeconds.toFixed(1)} s), ${s.runs} runs (${s.runSeconds.toFixed(1)} s)`,
    }));
    const total = profile.stages.reduce((t, s) => t + s.wallSeconds, 0);
    return [...results, { name: 'total', value: total, unit: 's' }];
  },
};
export default section;
