/**
 * `mage report`: per-attempt success curves (in-domain and out-of-domain, one series per run), per-opponent
 * curves and training curves as SVG + PNG, and a `report.md` summary, from one or more run directories.
 */

import { readFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import {
  codeKey,
  codeLabel,
  type EvalStatsV1,
  IoError,
  type MetricsLineV1,
  machineLabel,
  pathExists,
  type RolloutStatsV1,
  type RunProcessV1,
  readRunMachines,
  type UpdateStatsV1,
  writeFileAtomic,
} from '@mage-rl/core';
import {
  chartGrid,
  evalOpponentTable,
  evalSummaryTable,
  renderPng,
  reportFigures,
  vegaChart,
} from '@mage-rl/report';
import { readRunRecord } from '../run-record/run-record';

export interface RunData {
  readonly dir: string;
  /** Display name: the method and env from config.json, else the directory name. */
  readonly name: string;
  readonly method: string | null;
  readonly env: string | null;
  readonly rollouts: readonly RolloutStatsV1[];
  readonly updates: readonly UpdateStatsV1[];
  readonly evals: readonly EvalStatsV1[];
  /** 1-based numbers of unreadable metrics lines that were left out (not counting a torn last line). */
  readonly skippedLines: readonly number[];
  /**
   * The processes that trained the run and their machines (machine.json), oldest first; `unreadable` when
   * the file is damaged; null or absent when the run has none (runs written before it existed).
   */
  readonly machines?: readonly RunProcessV1[] | 'unreadable' | null;
}

/**
 * Reads `config.json`, `metrics.jsonl` and `machine.json` of a run directory. A torn last line (a killed
 * run) is ignored; unreadable lines before it are left out and listed in `skippedLines` (1-based), for the
 * caller to say. A damaged machine.json only describes the machines: it does not stop the report.
 */
export async function readRun(dir: string): Promise<RunData> {
  const metricsPath = join(dir, 'metrics.jsonl');
  if (!(await pathExists(metricsPath))) {
    throw new IoError(`'${dir}' is not a run directory: it has no metrics.jsonl.`, { context: { dir } });
  }
  const record = (await pathExists(join(dir, 'config.json'))) ? await readRunRecord(dir) : null;
  const method = record?.method ?? null;
  const env = record?.env ?? null;
  const rollouts: RolloutStatsV1[] = [];
  const updates: UpdateStatsV1[] = [];
  const evals: EvalStatsV1[] = [];
  const skippedLines: number[] = [];
  let text: string;
  try {
    text = await readFile(metricsPath, 'utf8');
  } catch (cause) {
    throw new IoError(`Could not read '${metricsPath}': ${(cause as Error).message}`, { cause });
  }
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let parsed: MetricsLineV1 | null = null;
    try {
      parsed = JSON.parse(line) as MetricsLineV1;
    } catch {
      // The last line may be torn by a kill (the run resumes from its checkpoint); others are damage.
    }
    const type = typeof parsed === 'object' && parsed !== null ? parsed.type : undefined;
    if (parsed !== null && type === 'rollout') rollouts.push(parsed as RolloutStatsV1 & MetricsLineV1);
    else if (parsed !== null && type === 'update') updates.push(parsed as UpdateStatsV1 & MetricsLineV1);
    else if (parsed !== null && type === 'eval') evals.push(parsed as EvalStatsV1 & MetricsLineV1);
    else if (i < lines.length - 1) skippedLines.push(i + 1);
  });
  const name = method ? `${method}${env ? ` (${env})` : ''}` : basename(resolve(dir));
  const machines = await readRunMachines(dir).then(
    (record) => record?.processes ?? null,
    () => 'unreadable' as const,
  );
  return { dir, name, method, env, rollouts, updates, evals, skippedLines, machines };
}

/** How a report names a run's directory: relative to the report, or its own name when they are one. */
const shownDir = (run: RunData, outDir: string): string => relative(outDir, run.dir) || basename(run.dir);

/**
 * The machine lines of a report, one per run that records its machines (with a blank line after them):
 * `Machine: …` for a run trained on one machine, or the machines in order, each from the iteration it
 * took over at, for a run resumed on others. Runs on the same config and seed differ across machines, so
 * this is what tells whether two runs are comparable. Nothing for runs without machine.json.
 */
export function machineLines(runs: readonly RunData[], outDir: string): string[] {
  const lines: string[] = [];
  for (const run of runs) {
    const of = runs.length > 1 ? ` of \`${shownDir(run, outDir)}\`` : '';
    const machines = run.machines ?? null;
    if (machines === 'unreadable') {
      lines.push(`Machine${of}: not known (its machine.json does not read).`);
      continue;
    }
    if (machines === null || machines.length === 0) continue;
    // Consecutive processes on the same machine are one stretch of the run.
    const stretches: { from: number; label: string }[] = [];
    for (const p of machines) {
      const label = machineLabel(p.machine);
      if (stretches.at(-1)?.label !== label) stretches.push({ from: p.startIteration, label });
    }
    const distinct = new Set(stretches.map((s) => s.label)).size;
    lines.push(
      distinct === 1
        ? `Machine${of}: ${stretches[0]?.label}.`
        : `Machines${of}: trained on ${distinct} machines — ${stretches
            .map((s) => `from iteration ${s.from}: ${s.label}`)
            .join('; ')}.`,
    );
  }
  return lines.length > 0 ? [...lines, ''] : [];
}

/**
 * The code lines of a report, one per run: `Code: commit 1a2b3c4.` (with `(dirty)` when tracked files
 * differed from it), the code of each stretch of a run resumed at other commits with the iteration it took
 * over at, or `commit unknown` for runs recorded before machine.json named the code. When the runs of one
 * report ran different code, a line says so: their numbers are not comparable.
 */
export function codeLines(runs: readonly RunData[], outDir: string): string[] {
  const lines: string[] = [];
  const keys = new Set<string>();
  for (const run of runs) {
    const of = runs.length > 1 ? ` of \`${shownDir(run, outDir)}\`` : '';
    const machines = run.machines ?? null;
    if (machines === 'unreadable') {
      lines.push(`Code${of}: not known (its machine.json does not read).`);
      keys.add('unknown');
      continue;
    }
    const processes = machines ?? [];
    const stretches: { from: number; key: string; label: string }[] = [];
    for (const p of processes) {
      const key = codeKey(p.code);
      if (stretches.at(-1)?.key !== key)
        stretches.push({ from: p.startIteration, key, label: codeLabel(p.code) });
    }
    for (const s of stretches) keys.add(s.key);
    if (stretches.length <= 1) {
      lines.push(`Code${of}: ${stretches[0]?.label ?? codeLabel(undefined)}.`);
      if (stretches.length === 0) keys.add('unknown');
      continue;
    }
    lines.push(
      `Code${of}: trained by ${stretches.length} versions — ${stretches.map((s) => `from iteration ${s.from}: ${s.label}`).join('; ')}.`,
    );
  }
  if (runs.length > 1 && keys.size > 1) {
    lines.push('**The runs ran different code (or code not recorded): their numbers are not comparable.**');
  }
  return [...lines, ''];
}

/** A warning for the unreadable lines of a run's metrics.jsonl, or null when there are none. */
export function skippedLinesWarning(run: RunData): string | null {
  const n = run.skippedLines.length;
  if (n === 0) return null;
  const shown = run.skippedLines.slice(0, 10).join(', ') + (n > 10 ? ', …' : '');
  return `${join(run.dir, 'metrics.jsonl')}: ${n} unreadable line(s) left out of the report (line ${shown}); the file is damaged — the checkpoints are unaffected.`;
}

export interface ReportFiles {
  readonly markdown: string;
  readonly images: readonly string[];
}

/** Writes the report of `runs` into `outDir` (SVG + PNG charts and report.md). */
export async function writeReport(runs: readonly RunData[], outDir: string): Promise<ReportFiles> {
  const charted = runs.map((r, i) => ({
    id: String(i),
    name: r.name,
    rollouts: r.rollouts,
    updates: r.updates,
    evals: r.evals,
  }));
  const images: string[] = [];
  const figures = reportFigures(charted);
  for (const f of figures) {
    const charts = await Promise.all(f.charts.map((c) => vegaChart(c)));
    const grid = chartGrid(charts, 2);
    const svgPath = join(outDir, `${f.file}.svg`);
    const pngPath = join(outDir, `${f.file}.png`);
    await writeFileAtomic(svgPath, grid.svg);
    await writeFileAtomic(pngPath, renderPng(grid.svg));
    images.push(svgPath, pngPath);
  }
  const md = [
    '# mage-rl run report',
    '',
    `Runs: ${runs.map((r) => `\`${shownDir(r, outDir)}\` (${r.name}, ${r.updates.length} updates)`).join(', ')}.`,
    '',
    ...machineLines(runs, outDir),
    ...codeLines(runs, outDir),
    'Success is cumulative over attempts (pass@k: solved in any of the first k attempts), from the last',
    'evaluation of each run; brackets are 95% Wilson intervals.',
    '',
    '## In-domain opponents',
    '',
    ...evalSummaryTable(runs, 'inDomain'),
    '## Out-of-domain opponents',
    '',
    ...evalSummaryTable(runs, 'outOfDomain'),
    '## Per opponent',
    '',
    ...evalOpponentTable(runs),
    ...figures.flatMap((f) => [`## ${f.title}`, '', `![${f.title}](${f.file}.png)`, '']),
  ].join('\n');
  const markdown = join(outDir, 'report.md');
  await writeFileAtomic(markdown, md);
  return { markdown, images };
}
