/**
 * `mage report`: per-attempt success curves (in-domain and out-of-domain, one series per run), per-opponent
 * curves and training curves as SVG + PNG, and a `report.md` summary, from one or more run directories.
 */

import { readFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import {
  type EvalStatsV1,
  IoError,
  type MetricsLineV1,
  type MetricsSummaryV1,
  pathExists,
  type RolloutStatsV1,
  readJsonChecked,
  type UpdateStatsV1,
  writeFileAtomic,
} from '@mage-rl/core';
import { reportFigures } from '@mage-rl/dashboard';
import { z } from 'zod';
import { renderPng } from './png';
import { chartGrid, vegaChart } from './svg-chart';

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
}

const reportConfigSchema = z
  .object({
    extra: z
      .object({
        method: z.unknown().optional(),
        env: z.object({ id: z.unknown().optional() }).loose().nullable().optional(),
      })
      .loose()
      .nullable()
      .optional(),
  })
  .loose();

/**
 * Reads `config.json` and `metrics.jsonl` of a run directory. A torn last line (a killed run) is ignored;
 * unreadable lines before it are left out and listed in `skippedLines` (1-based), for the caller to say.
 */
export async function readRun(dir: string): Promise<RunData> {
  const metricsPath = join(dir, 'metrics.jsonl');
  if (!(await pathExists(metricsPath))) {
    throw new IoError(`'${dir}' is not a run directory: it has no metrics.jsonl.`, { context: { dir } });
  }
  let method: string | null = null;
  let env: string | null = null;
  if (await pathExists(join(dir, 'config.json'))) {
    const config = await readJsonChecked(join(dir, 'config.json'), {
      what: "the run's configuration record",
      fix: 'restore it, or move it away to report the run under its directory name',
      schema: reportConfigSchema,
    });
    method = typeof config.extra?.method === 'string' ? config.extra.method : null;
    env = typeof config.extra?.env?.id === 'string' ? config.extra.env.id : null;
  }
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
  return { dir, name, method, env, rollouts, updates, evals, skippedLines };
}

/** A warning for the unreadable lines of a run's metrics.jsonl, or null when there are none. */
export function skippedLinesWarning(run: RunData): string | null {
  const n = run.skippedLines.length;
  if (n === 0) return null;
  const shown = run.skippedLines.slice(0, 10).join(', ') + (n > 10 ? ', …' : '');
  return `${join(run.dir, 'metrics.jsonl')}: ${n} unreadable line(s) left out of the report (line ${shown}); the file is damaged — the checkpoints are unaffected.`;
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

/** The last evaluation after training started (the one before training has iteration −1). */
const lastEval = (run: RunData): EvalStatsV1 | undefined => run.evals.filter((e) => e.iteration >= 0).at(-1);

/** Per-opponent summaries of a run's last evaluation, in-domain first. */
function lastEvalByOpponent(
  run: RunData,
): { domain: 'in' | 'out'; opponent: string; summary: MetricsSummaryV1 }[] {
  const last = lastEval(run);
  return (
    [
      ['in', last?.inDomain],
      ['out', last?.outOfDomain],
    ] as const
  ).flatMap(([domain, m]) =>
    Object.entries(m?.byOpponent ?? {}).map(([opponent, summary]) => ({ domain, opponent, summary })),
  );
}

function summaryTable(runs: readonly RunData[], domain: 'inDomain' | 'outOfDomain'): string[] {
  const rows: string[] = [];
  for (const run of runs) {
    const last = lastEval(run);
    const m = last?.[domain];
    if (!m || !last) continue;
    const per = m.overall.perAttempt;
    const first = per[0]?.passAtK;
    const final = per.at(-1)?.passAtK;
    if (!first || !final) continue;
    rows.push(
      `| ${run.name} | ${last.completed} | ${m.overall.metaEpisodes} | ${per.map((a) => `${pct(a.passAtK.rate)} [${pct(a.passAtK.low)}, ${pct(a.passAtK.high)}]`).join(' → ')} | ${(100 * (final.rate - first.rate)).toFixed(1)} pts | ${pct(m.overall.invalidActionRate.rate)} |`,
    );
  }
  if (rows.length === 0) return ['_No evaluation recorded._', ''];
  return [
    '| run | updates | meta-episodes | pass@k, k = 1..K (95% Wilson interval) | gain K vs 1 | invalid actions |',
    '|---|---:|---:|---|---:|---:|',
    ...rows,
    '',
  ];
}

function opponentTable(runs: readonly RunData[]): string[] {
  const lines = runs.flatMap((run) =>
    lastEvalByOpponent(run).map(({ domain, opponent, summary }) => {
      const a = summary.perAttempt[0]?.passAtK.rate ?? 0;
      const b = summary.perAttempt.at(-1)?.passAtK.rate ?? 0;
      return `| ${run.name} | ${domain} | ${opponent} | ${pct(a)} | ${pct(b)} | ${(100 * (b - a)).toFixed(1)} pts |`;
    }),
  );
  return lines.length > 0
    ? ['| run | domain | opponent | pass@1 | pass@K | gain |', '|---|---|---|---:|---:|---:|', ...lines, '']
    : [];
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
    `Runs: ${runs.map((r) => `\`${relative(outDir, r.dir) || basename(r.dir)}\` (${r.name}, ${r.updates.length} updates)`).join(', ')}.`,
    '',
    'Success is cumulative over attempts (pass@k: solved in any of the first k attempts), from the last',
    'evaluation of each run; brackets are 95% Wilson intervals.',
    '',
    '## In-domain opponents',
    '',
    ...summaryTable(runs, 'inDomain'),
    '## Out-of-domain opponents',
    '',
    ...summaryTable(runs, 'outOfDomain'),
    '## Per opponent',
    '',
    ...opponentTable(runs),
    ...figures.flatMap((f) => [`## ${f.title}`, '', `![${f.title}](${f.file}.png)`, '']),
  ].join('\n');
  const markdown = join(outDir, 'report.md');
  await writeFileAtomic(markdown, md);
  return { markdown, images };
}
