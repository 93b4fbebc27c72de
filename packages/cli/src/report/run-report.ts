/**
 * `mage report`: per-attempt success curves (in-domain and out-of-domain, one series per run), per-opponent
 * curves and training curves as SVG + PNG, and a `report.md` summary, from one or more run directories.
 */

import { readFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import {
  type EvalStatsV1,
  IoError,
  type MetaEpisodeMetricsV1,
  type MetricsLineV1,
  type MetricsSummaryV1,
  pathExists,
  type RolloutStatsV1,
  readJsonChecked,
  type UpdateStatsV1,
  writeFileAtomic,
} from '@mage-rl/core';
import { z } from 'zod';
import { renderPng } from './png';
import { type Chart, chartGrid, lineChart, type Series } from './svg-chart';

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

function passSeries(name: string, m: MetaEpisodeMetricsV1 | null | undefined, dashed = false): Series | null {
  if (!m) return null;
  return {
    name,
    dashed,
    points: m.overall.perAttempt.map((a) => ({
      x: a.attempt + 1,
      y: a.passAtK.rate,
      lo: a.passAtK.low,
      hi: a.passAtK.high,
    })),
  };
}

/** The axes of a success-rate chart: 0–100% over integer attempts or iterations. */
const RATE_AXES = { percent: true, yMin: 0, yMax: 1, integerX: true } as const;

/** A pass@k-by-attempt chart (percent axis 0–100%, integer attempts). */
export function passAtKChart(options: {
  readonly title: string;
  readonly series: readonly Series[];
  readonly yLabel?: string;
  readonly width?: number;
  readonly height?: number;
  readonly emptyText?: string;
}): Chart {
  return lineChart({
    xLabel: 'attempt k',
    yLabel: 'pass@k',
    ...RATE_AXES,
    ...options,
  });
}

/** Success-per-attempt charts: in-domain and out-of-domain, last evaluation of every run (+ before training). */
function attemptCharts(runs: readonly RunData[]): Chart[] {
  const charts: Chart[] = [];
  for (const domain of ['inDomain', 'outOfDomain'] as const) {
    const series: Series[] = [];
    for (const run of runs) {
      const last = lastEval(run);
      const before = run.evals.find((e) => e.iteration < 0);
      const s = passSeries(`${run.name}${last ? ` @${last.completed}` : ''}`, last?.[domain]);
      if (s) series.push(s);
      const b = passSeries(`${run.name} before training`, before?.[domain], true);
      if (b && runs.length === 1) series.push(b);
    }
    charts.push(
      passAtKChart({
        title: domain === 'inDomain' ? 'In-domain: success by attempt' : 'Out-of-domain: success by attempt',
        yLabel: 'cumulative success (pass@k)',
        series,
        emptyText: 'no evaluation in these runs',
      }),
    );
  }
  return charts;
}

/** One chart per opponent: pass@k by attempt at the last evaluation, one series per run. */
function opponentCharts(runs: readonly RunData[]): Chart[] {
  const byOpponent = new Map<string, Series[]>();
  for (const run of runs) {
    for (const { domain, opponent, summary } of lastEvalByOpponent(run)) {
      const key = `${opponent}${domain === 'out' ? ' (OOD)' : ''}`;
      const list = byOpponent.get(key) ?? [];
      list.push({
        name: run.name,
        points: summary.perAttempt.map((a) => ({
          x: a.attempt + 1,
          y: a.passAtK.rate,
          lo: a.passAtK.low,
          hi: a.passAtK.high,
        })),
      });
      byOpponent.set(key, list);
    }
  }
  return [...byOpponent.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([opponent, series]) => passAtKChart({ title: opponent, series, width: 420, height: 320 }));
}

/** Training curves against the iteration: rollout success, loss, KL and entropy, invalid actions. */
function trainingCharts(runs: readonly RunData[]): Chart[] {
  const per = <T extends { iteration: number }>(
    pick: (run: RunData) => readonly T[],
    y: (x: T) => number | null,
    suffix = '',
  ): Series[] =>
    runs.map((run) => ({
      name: `${run.name}${suffix}`,
      points: pick(run)
        .map((x) => ({ x: x.iteration, y: y(x) }))
        .filter((p): p is { x: number; y: number } => p.y !== null && Number.isFinite(p.y)),
    }));
  const lastAttempt = (m: MetricsSummaryV1) => m.perAttempt.at(-1)?.passAtK.rate ?? 0;
  return [
    lineChart({
      title: 'Rollout success (training tasks)',
      xLabel: 'iteration',
      yLabel: 'success',
      ...RATE_AXES,
      series: [
        ...per(
          (r) => r.rollouts,
          (x) => x.metrics.overall.perAttempt[0]?.passAtK.rate ?? null,
          ' pass@1',
        ),
        ...per(
          (r) => r.rollouts,
          (x) => lastAttempt(x.metrics.overall),
          ' pass@K',
        ).map((s) => ({ ...s, dashed: true })),
      ],
    }),
    lineChart({
      title: 'Policy loss',
      xLabel: 'iteration',
      yLabel: 'loss',
      integerX: true,
      series: per(
        (r) => r.updates,
        (x) => x.loss,
      ),
    }),
    lineChart({
      title: 'KL to reference and entropy',
      xLabel: 'iteration',
      yLabel: 'nats / token',
      integerX: true,
      series: [
        ...per(
          (r) => r.updates,
          (x) => x.kl,
          ' KL',
        ),
        ...per(
          (r) => r.updates,
          (x) => x.entropy,
          ' entropy',
        ).map((s) => ({ ...s, dashed: true })),
      ],
    }),
    lineChart({
      title: 'Invalid actions (rollouts)',
      xLabel: 'iteration',
      yLabel: 'invalid play turns',
      percent: true,
      yMin: 0,
      integerX: true,
      series: per(
        (r) => r.rollouts,
        (x) => x.metrics.overall.invalidActionRate.rate,
      ),
    }),
  ];
}

/**
 * Where the credit went, against the iteration: mean advantage of move rows per attempt, of reflection
 * rows, the truncation rate and the reflections' share of response tokens. Runs recorded before these
 * diagnostics existed have no points.
 */
function creditCharts(runs: readonly RunData[]): Chart[] {
  const series = (
    name: string,
    run: RunData,
    y: (c: UpdateStatsV1['credit']) => number | undefined,
    dashed = false,
  ): Series => ({
    name,
    dashed,
    points: run.updates
      .map((u) => ({ x: u.iteration, y: u.credit ? y(u.credit) : undefined }))
      .filter((p): p is { x: number; y: number } => p.y !== undefined && Number.isFinite(p.y)),
  });
  const attempts = Math.max(0, ...runs.flatMap((r) => r.updates.map((u) => u.credit?.attempts.length ?? 0)));
  const prefix = (run: RunData) => (runs.length > 1 ? `${run.name} ` : '');
  return [
    lineChart({
      title: 'Mean advantage by attempt (moves; notes dashed)',
      xLabel: 'iteration',
      yLabel: 'advantage',
      integerX: true,
      series: runs.flatMap((run) => [
        ...Array.from({ length: attempts }, (_, k) =>
          series(`${prefix(run)}attempt ${k + 1}`, run, (c) =>
            c.attempts[k]?.advantage.play.n ? c.attempts[k].advantage.play.mean : undefined,
          ),
        ),
        series(
          `${prefix(run)}notes`,
          run,
          (c) => (c.advantage.reflect.n ? c.advantage.reflect.mean : undefined),
          true,
        ),
      ]),
      emptyText: 'no credit diagnostics in these runs',
    }),
    lineChart({
      title: 'Truncations, invalid turns by kind, note tokens',
      xLabel: 'iteration',
      yLabel: 'fraction',
      percent: true,
      yMin: 0,
      integerX: true,
      series: runs.flatMap((run) => [
        series(`${prefix(run)}truncated attempts`, run, (c) => c.truncationRate),
        series(`${prefix(run)}unparsed moves`, run, (c) => c.invalid?.format),
        series(`${prefix(run)}illegal moves`, run, (c) => c.invalid?.rule),
        series(`${prefix(run)}note share of tokens`, run, (c) => c.tokenShare.reflect, true),
      ]),
      emptyText: 'no credit diagnostics in these runs',
    }),
  ];
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
  const figures: { file: string; title: string; chart: Chart }[] = [
    { file: 'success-by-attempt', title: 'Success by attempt', chart: chartGrid(attemptCharts(runs), 2) },
    { file: 'training-curves', title: 'Training curves', chart: chartGrid(trainingCharts(runs), 2) },
    { file: 'credit', title: 'Where the credit went', chart: chartGrid(creditCharts(runs), 2) },
  ];
  const opponents = opponentCharts(runs);
  if (opponents.length > 0) {
    figures.push({ file: 'per-opponent', title: 'Per opponent', chart: chartGrid(opponents, 3) });
  }
  const images: string[] = [];
  for (const f of figures) {
    const svgPath = join(outDir, `${f.file}.svg`);
    const pngPath = join(outDir, `${f.file}.png`);
    await writeFileAtomic(svgPath, f.chart.svg);
    await writeFileAtomic(pngPath, renderPng(f.chart.svg));
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
