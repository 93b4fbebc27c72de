/**
 * One PPO update iteration at the shapes real runs train on, ours against PyTorch eager on the same
 * model, rows and algorithm. For each recipe (`src/update-shapes/recipes.ts`: the Higher-Lower recipe
 * and Tic-Tac-Toe `laptop`) a real rollout from the recipe's warm start is captured once
 * (`src/update-shapes/capture.ts`: the rows, advantages and loss settings the trainer's update phase
 * passed to `learner.update`); then, alternating, one process each: our learner (`ours.ts`) and
 * PyTorch eager with the same passes (`pytorch/update_bench.py`; other modes with
 * `MAGE_BENCH_UPDATE_TORCH_MODES`), each timing a warm-up and `MAGE_BENCH_UPDATE_ITERATIONS` iterations
 * from the same starting state. Best of all timed iterations per side; peak RSS per side; the reference
 * log-probs of both sides against the trainer's.
 */

import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  type BenchResult,
  type BenchSection,
  findTorchPython,
  runJsonChild,
  runJsonCommand,
} from '../harness';
import { type CapturedUpdate, capturePath, RECIPES } from '../update-shapes/recipes';

const ITERATIONS = Number(process.env.MAGE_BENCH_UPDATE_ITERATIONS ?? 2);
const ROUNDS = Number(process.env.MAGE_BENCH_UPDATE_ROUNDS ?? 2);
const ONLY = process.env.MAGE_BENCH_UPDATE_RECIPES?.split(',');
/**
 * `update_bench.py`'s modes to run: `one-pass` (our learner's passes), `scoring-pass` (a scoring forward
 * first, as our learner ran before it computed the PPO weights in its training pass).
 */
const TORCH_MODES = (process.env.MAGE_BENCH_UPDATE_TORCH_MODES ?? 'one-pass').split(',');
// Our update paths: `default`, and `padded` (one padded sequence per row and a scoring pass before each
// mini-batch, as before the in-graph PPO weights and segment rows), for the ratio of the two in one run.
const OUR_PATHS = (process.env.MAGE_BENCH_UPDATE_OURS ?? 'default,padded').split(',');
const script = (name: string) => fileURLToPath(new URL(`../update-shapes/${name}`, import.meta.url));
const TORCH_SCRIPT = fileURLToPath(new URL('../../pytorch/update_bench.py', import.meta.url));

interface Pass {
  readonly runs: number;
  readonly positions: number;
  readonly ms?: number;
}
interface Iteration {
  readonly warmUp: boolean;
  readonly ms: number;
  readonly cpuMs: number;
  readonly steps: number;
  readonly tokens: number;
  readonly loss: number;
  readonly miniBatchLosses: number[];
  readonly referenceMs?: number;
  readonly updateMs?: number;
  readonly passes?: Record<string, Pass>;
  readonly compiles?: { readonly count: number; readonly ms: number };
  readonly phasesMs?: Record<string, number>;
}
interface SideRun {
  readonly side: string;
  readonly refMaxAbsVsTrainer: number;
  readonly iterations: Iteration[];
  readonly passes?: Record<string, Pass>;
  readonly maxRssBytes: number;
  readonly torch?: string;
  readonly threads?: number;
}

const s = (ms: number) => (ms / 1000).toFixed(2);
const mib = (bytes: number) => bytes / 2 ** 20;

/** The timed (not warm-up) iterations of a side's runs, best first. */
const timed = (runs: readonly SideRun[]) =>
  runs.flatMap((r) => r.iterations.filter((i) => !i.warmUp)).sort((a, b) => a.ms - b.ms);

/** Awaits one process; a failure (e.g. no PyTorch) becomes a message and `undefined`. */
async function side(label: string, run: Promise<SideRun>): Promise<SideRun | undefined> {
  try {
    const r = await run;
    const best = timed([r])[0];
    process.stderr.write(
      `update-shapes ${label}: best ${best ? s(best.ms) : '?'} s, ${r.iterations.map((i) => s(i.ms)).join(' / ')} s (first is the warm-up), peak RSS ${mib(r.maxRssBytes).toFixed(0)} MiB\n`,
    );
    return r;
  } catch (e) {
    process.stderr.write(`update-shapes ${label} failed: ${e instanceof Error ? e.message : String(e)}\n`);
    return undefined;
  }
}

const passText = (passes: Record<string, Pass> | undefined) =>
  Object.entries(passes ?? {})
    .map(
      ([k, p]) =>
        `${k} ${p.runs} runs, ${p.positions} positions${p.ms === undefined ? '' : `, ${s(p.ms)} s`}`,
    )
    .join('; ');

function sideResults(
  recipe: string,
  label: string,
  runs: readonly SideRun[],
  realPositions: number,
): BenchResult[] {
  const all = timed(runs);
  const best = all[0];
  if (best === undefined) return [];
  const phases = best.phasesMs
    ? Object.entries(best.phasesMs)
        .map(([k, v]) => `${k} ${s(v)}`)
        .join(', ')
    : `reference ${s(best.referenceMs ?? 0)}, update ${s(best.updateMs ?? 0)}`;
  const compiles = best.compiles ? `; ${best.compiles.count} sessions compiled in it` : '';
  return [
    {
      name: `${recipe}: update iteration (${label})`,
      value: best.ms / 1000,
      unit: 's',
      note: `best of ${all.length}: ${all.map((i) => s(i.ms)).join(' / ')} s; CPU ${s(best.cpuMs)} s; ${phases} s; ${best.steps} optimizer steps, ${best.tokens} trained tokens; passes: ${passText(best.passes ?? runs[0]?.passes)} (real positions per pass ${realPositions})${compiles}`,
    },
    {
      name: `${recipe}: trained tokens/s (${label})`,
      value: (best.tokens * 1000) / best.ms,
      unit: 'tokens/s',
      note: `${((best.tokens * 1000) / best.cpuMs).toFixed(0)} per CPU second`,
    },
  ];
}

/** The PyTorch side's label for a mode of `update_bench.py`. */
const torchLabel = (mode: string) => (mode === 'one-pass' ? 'PyTorch' : `PyTorch, ${mode}`);

async function runRecipe(id: string, python: string | undefined): Promise<BenchResult[]> {
  const path = capturePath(id);
  if (!existsSync(path) || process.env.MAGE_BENCH_UPDATE_RECAPTURE === '1') {
    process.stdout.write(`capturing one update of ${id} (warm start, one rollout) into ${path} …\n`);
    await runJsonChild(script('capture.ts'), [id]);
  }
  const cap = JSON.parse(await readFile(path, 'utf8')) as CapturedUpdate;
  const spans = cap.rows.reduce((n, r) => n + r.spans.length, 0);
  const scored = cap.rows.reduce((n, r) => n + r.spans.reduce((m, sp) => m + sp.length, 0), 0);
  const real = cap.rows.reduce((n, r) => {
    const last = r.spans.at(-1);
    return n + (last ? last.start + last.length - 1 : 0);
  }, 0);
  process.stdout.write(
    `${id}: ${cap.rows.length} packed rows (${spans} turns, ${real} input positions, ${scored} scored tokens), ${cap.miniBatches.flat().length} mini-batches\n`,
  );
  const ours: SideRun[] = [];
  const paddedRuns: SideRun[] = [];
  const torch = new Map<string, SideRun[]>(TORCH_MODES.map((m) => [m, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const p of OUR_PATHS) {
      const label = p === 'padded' ? `${id} ours, padded` : `${id} ours`;
      const o = await side(label, runJsonChild<SideRun>(script('ours.ts'), [path, String(ITERATIONS), p]));
      if (o) (p === 'padded' ? paddedRuns : ours).push(o);
    }
    if (!python) continue;
    for (const mode of TORCH_MODES) {
      const args = [TORCH_SCRIPT, path, String(ITERATIONS), mode];
      const t = await side(`${id} ${torchLabel(mode)}`, runJsonCommand<SideRun>(python, args));
      if (t) torch.get(mode)?.push(t);
    }
  }
  const results: BenchResult[] = [
    {
      name: `${id}: the trainer's own update (capture)`,
      value: (cap.trainer.referenceMs + cap.trainer.updateMs) / 1000,
      unit: 's',
      note: `iteration 0 of the captured run, sessions compiled on the way: reference ${s(cap.trainer.referenceMs)} s + update ${s(cap.trainer.updateMs)} s; ${cap.trainer.steps} steps, ${cap.trainer.tokens} tokens, loss ${cap.trainer.loss.toFixed(6)}`,
    },
    ...sideResults(id, 'ours', ours, real),
    ...sideResults(id, 'ours, padded', paddedRuns, real),
    ...TORCH_MODES.flatMap((m) => sideResults(id, torchLabel(m), torch.get(m) ?? [], real)),
  ];
  const o = timed(ours)[0];
  const old = timed(paddedRuns)[0];
  if (o && old)
    results.push({
      name: `${id}: time ours, padded / ours`,
      value: old.ms / o.ms,
      unit: '×',
      note: `best against best; CPU time ${(old.cpuMs / o.cpuMs).toFixed(2)}×; iteration loss ${old.loss.toFixed(6)} vs ${o.loss.toFixed(6)}`,
    });
  for (const mode of TORCH_MODES) {
    const t = timed(torch.get(mode) ?? [])[0];
    if (o && t)
      results.push({
        name: `${id}: time ours / ${torchLabel(mode)}`,
        value: o.ms / t.ms,
        unit: '×',
        note: `best against best; CPU time ${(o.cpuMs / t.cpuMs).toFixed(2)}×; first mini-batch loss ${o.miniBatchLosses[0]?.toFixed(6)} vs ${t.miniBatchLosses[0]?.toFixed(6)}, iteration loss ${o.loss.toFixed(6)} vs ${t.loss.toFixed(6)}`,
      });
  }
  for (const [label, runs] of [
    ['ours', ours] as const,
    ['ours, padded', paddedRuns] as const,
    ...TORCH_MODES.map((m) => [torchLabel(m), torch.get(m) ?? []] as const),
  ]) {
    if (runs.length === 0) continue;
    results.push({
      name: `${id}: peak RSS (${label})`,
      value: mib(Math.max(...runs.map((r) => r.maxRssBytes))),
      unit: 'MiB',
      note: `largest of ${runs.map((r) => mib(r.maxRssBytes).toFixed(0)).join(' / ')} MiB`,
    });
  }
  const first = [ours[0], ...TORCH_MODES.map((m) => torch.get(m)?.[0])].filter((r) => r !== undefined);
  for (const r of first)
    results.push({
      name: `${id}: reference log-probs max |${r.side} − trainer|`,
      value: r.refMaxAbsVsTrainer,
      unit: 'nats',
      note: `${scored} scored tokens`,
    });
  return results;
}

const section: BenchSection = {
  title:
    'One PPO update iteration at real shapes (Higher-Lower recipe, Tic-Tac-Toe laptop): ours vs PyTorch eager',
  async run() {
    const python = findTorchPython();
    if (!python)
      process.stdout.write(
        'PyTorch side skipped: no python3 with torch (scripts/install-bench-deps.sh installs it).\n',
      );
    const results: BenchResult[] = [];
    for (const recipe of RECIPES) {
      if (ONLY && !ONLY.includes(recipe.id)) continue;
      results.push(...(await runRecipe(recipe.id, python)));
    }
    return results;
  },
};
export default section;
