/**
 * The results of a `mage experiment`: per policy, evaluation protocol (memory) and suite, the mean over
 * seeds with a 95% Student-t interval of pass@k per attempt, the attempt-1 → K gain, the invalid-move
 * rate and the mean return per attempt, plus per-opponent means; written as `results.json`, `report.md`
 * and success-by-attempt charts (SVG + PNG).
 */

import { join } from 'node:path';
import {
  type MeanIntervalV1,
  type MetricsSummaryV1,
  meanInterval,
  writeFileAtomic,
  writeJsonAtomic,
} from '@mage-rl/core';
import type { ChartPoint } from '@mage-rl/dashboard';
import type { ExperimentEvalV1 } from '../experiment/experiment';
import { renderPng } from './png';
import type { OpponentReferenceV1, ReferenceValuesV1 } from './reference-values';
import { type Chart, chartGrid, vegaChart } from './svg-chart';

export const EXPERIMENT_RESULTS_FORMAT = 'mage-rl/experiment-results@1';

/** Seed-level numbers of one summary and their means over seeds. */
export interface SummaryAggregateV1 {
  readonly seeds: readonly number[];
  /** pass@k for k = 1..K. */
  readonly passAtK: readonly MeanIntervalV1[];
  /** pass@K − pass@1. */
  readonly gain: MeanIntervalV1;
  readonly invalidActionRate: MeanIntervalV1;
  /** Mean return R_k of the attempts played at k. */
  readonly meanReturn: readonly MeanIntervalV1[];
  readonly metaEpisodesPerSeed: number;
}

export interface ExperimentRowV1 {
  readonly label: string;
  readonly method: string;
  readonly memory: string;
  readonly suite: string;
  readonly domain: 'in' | 'out';
  readonly overall: SummaryAggregateV1;
  readonly byOpponent: Readonly<Record<string, SummaryAggregateV1>>;
  /** Mean wall time per seed of training and of this evaluation. */
  readonly trainSeconds: number;
  readonly evalSeconds: number;
}

export interface ExperimentResultsV1 {
  readonly format: typeof EXPERIMENT_RESULTS_FORMAT;
  readonly rows: readonly ExperimentRowV1[];
}

function aggregate(seeds: readonly number[], summaries: readonly MetricsSummaryV1[]): SummaryAggregateV1 {
  const k = Math.max(...summaries.map((s) => s.perAttempt.length));
  const at = (i: number, f: (a: MetricsSummaryV1['perAttempt'][number]) => number) =>
    meanInterval(summaries.map((s) => f(s.perAttempt[Math.min(i, s.perAttempt.length - 1)]!)));
  return {
    seeds,
    passAtK: Array.from({ length: k }, (_, i) => at(i, (a) => a.passAtK.rate)),
    gain: meanInterval(
      summaries.map((s) => (s.perAttempt.at(-1)?.passAtK.rate ?? 0) - (s.perAttempt[0]?.passAtK.rate ?? 0)),
    ),
    invalidActionRate: meanInterval(summaries.map((s) => s.invalidActionRate.rate)),
    meanReturn: Array.from({ length: k }, (_, i) => at(i, (a) => a.meanReturn)),
    metaEpisodesPerSeed: summaries[0]?.metaEpisodes ?? 0,
  };
}

/** Groups the evaluation records by policy, memory and suite and aggregates over seeds. */
export function experimentResults(evals: readonly ExperimentEvalV1[]): ExperimentResultsV1 {
  const groups = new Map<string, { first: ExperimentEvalV1; suite: string; records: ExperimentEvalV1[] }>();
  for (const e of evals) {
    for (const s of e.suites) {
      const key = `${e.label}\u0000${e.memory}\u0000${s.name}`;
      const g = groups.get(key) ?? { first: e, suite: s.name, records: [] };
      g.records.push(e);
      groups.set(key, g);
    }
  }
  const rows = [...groups.values()].map(({ first, suite, records }): ExperimentRowV1 => {
    const metrics = records.map((r) => r.suites.find((s) => s.name === suite)!);
    const seeds = records.map((r) => r.seed);
    const opponents = [...new Set(metrics.flatMap((m) => Object.keys(m.metrics.byOpponent)))].sort();
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    return {
      label: first.label,
      method: first.method,
      memory: first.memory,
      suite,
      domain: metrics[0]!.domain,
      overall: aggregate(
        seeds,
        metrics.map((m) => m.metrics.overall),
      ),
      byOpponent: Object.fromEntries(
        opponents.map((o) => [
          o,
          aggregate(
            seeds,
            metrics.flatMap((m) => m.metrics.byOpponent[o] ?? []),
          ),
        ]),
      ),
      trainSeconds: mean(records.map((r) => r.trainSeconds)),
      evalSeconds: mean(records.map((r) => r.evalSeconds)),
    };
  });
  const order = (r: ExperimentRowV1) => [
    r.label === 'warm-start' ? 0 : 1,
    r.label,
    r.memory === 'reflection' ? 0 : 1,
    r.memory,
  ];
  rows.sort((a, b) => {
    const x = order(a);
    const y = order(b);
    for (let i = 0; i < x.length; i++) {
      if (x[i]! < y[i]!) return -1;
      if (x[i]! > y[i]!) return 1;
    }
    return 0;
  });
  return { format: EXPERIMENT_RESULTS_FORMAT, rows };
}

const pct = (x: number) => (100 * x).toFixed(1);
/** `mean [low, high]` in percent; a rate's interval is clipped to [0, 100]. */
const withInterval = (m: MeanIntervalV1, rate = true) => {
  const clip = (x: number) => (rate ? Math.min(1, Math.max(0, x)) : x);
  const f = (x: number) => (100 * x).toFixed(1);
  return m.n > 1 ? `${f(m.mean)} [${f(clip(m.low))}, ${f(clip(m.high))}]` : f(m.mean);
};

/** The markdown table of one suite: a row per policy and protocol. */
export function suiteTable(rows: readonly ExperimentRowV1[]): string[] {
  const k = Math.max(...rows.map((r) => r.overall.passAtK.length));
  return [
    `| policy | eval memory | seeds | ${Array.from({ length: k }, (_, i) => `pass@${i + 1} %`).join(' | ')} | gain 1→${k} (pts) | invalid moves % |`,
    `|---|---|---:|${'---:|'.repeat(k)}---:|---:|`,
    ...rows.map(
      (r) =>
        `| ${r.label} | ${r.memory} | ${r.overall.seeds.length} | ${r.overall.passAtK.map((m) => withInterval(m)).join(' | ')} | ${withInterval(r.overall.gain, false)} | ${withInterval(r.overall.invalidActionRate)} |`,
    ),
  ];
}

function opponentTable(rows: readonly ExperimentRowV1[]): string[] {
  const opponents = [...new Set(rows.flatMap((r) => Object.keys(r.byOpponent)))].sort();
  if (opponents.length <= 1) return [];
  const k = Math.max(...rows.map((r) => r.overall.passAtK.length));
  return [
    `| policy | eval memory | ${opponents.map((o) => `${o} pass@1→${k} %`).join(' | ')} |`,
    `|---|---|${'---|'.repeat(opponents.length)}`,
    ...rows.map((r) => {
      const cells = opponents.map((o) => {
        const s = r.byOpponent[o];
        return s ? `${pct(s.passAtK[0]!.mean)} → ${pct(s.passAtK.at(-1)!.mean)}` : '';
      });
      return `| ${r.label} | ${r.memory} | ${cells.join(' | ')} |`;
    }),
    '',
  ];
}

/**
 * Mean return of the attempts played at each k (the env's reward units, e.g. 5 × chips per hand in Kuhn
 * Poker), overall and per opponent: how much of the available value each attempt takes.
 */
function returnTable(rows: readonly ExperimentRowV1[]): string[] {
  const opponents = [...new Set(rows.flatMap((r) => Object.keys(r.byOpponent)))].sort();
  const k = Math.max(...rows.map((r) => r.overall.meanReturn.length));
  const cell = (s: SummaryAggregateV1 | undefined) =>
    s ? s.meanReturn.map((m) => m.mean.toFixed(2)).join(' → ') : '';
  return [
    `Mean return of attempt 1 → ${k} (reward units; when the evaluation stops early, attempt k > 1 is played only after failed attempts):`,
    '',
    `| policy | eval memory | overall | ${opponents.join(' | ')} |`,
    `|---|---|---|${'---|'.repeat(opponents.length)}`,
    ...rows.map(
      (r) =>
        `| ${r.label} | ${r.memory} | ${cell(r.overall)} | ${opponents.map((o) => cell(r.byOpponent[o])).join(' | ')} |`,
    ),
    '',
  ];
}

/**
 * Returns per game in the game's unit against every opponent with exact references: attempt 1 → K beside
 * the best response (BR) and the equilibrium strategy (eq), and the share of the best response's value
 * that attempt 1 and attempt K take.
 */
function referenceTable(rows: readonly ExperimentRowV1[], refs: ReferenceValuesV1): string[] {
  const opponents = Object.keys(refs.byOpponent).filter((o) => rows.some((r) => r.byOpponent[o]));
  if (opponents.length === 0) return [];
  const perUnit = (m: MeanIntervalV1) => m.mean / refs.rewardPerReturn;
  const share = (x: number, br: number) => `${(100 * (x / br)).toFixed(0)}%`;
  const cell = (s: SummaryAggregateV1 | undefined, ref: OpponentReferenceV1) => {
    const first = s?.meanReturn[0];
    const last = s?.meanReturn.at(-1);
    if (!first || !last) return '';
    const values = s.meanReturn.map((m) => perUnit(m).toFixed(3)).join(' → ');
    return `${values} (${share(perUnit(first), ref.bestResponse)} → ${share(perUnit(last), ref.bestResponse)})`;
  };
  const ref = (o: string) => refs.byOpponent[o] as OpponentReferenceV1;
  return [
    `Return in ${refs.unit}, attempt 1 → K, and in brackets the share of the exact best response's value taken at attempt 1 → K:`,
    '',
    `| policy | eval memory | ${opponents.join(' | ')} |`,
    `|---|---|${'---|'.repeat(opponents.length)}`,
    `| best response | exact | ${opponents.map((o) => ref(o).bestResponse.toFixed(3)).join(' | ')} |`,
    `| equilibrium (CFR+) | exact | ${opponents.map((o) => ref(o).equilibrium.toFixed(3)).join(' | ')} |`,
    ...rows.map(
      (r) =>
        `| ${r.label} | ${r.memory} | ${opponents.map((o) => cell(r.byOpponent[o], ref(o))).join(' | ')} |`,
    ),
    '',
  ];
}

function suiteChart(suite: string, rows: readonly ExperimentRowV1[]): Promise<Chart> {
  const points: ChartPoint[] = rows.flatMap((r) =>
    r.overall.passAtK.map((m, i) => ({
      label: `${r.label} (${r.memory})`,
      x: i + 1,
      y: m.mean,
      lo: m.low,
      hi: m.high,
      ...(r.memory !== rows[0]?.memory ? { dashed: true } : {}),
    })),
  );
  return vegaChart({
    id: `suite-${suite}`,
    title: `${suite}: success by attempt (mean over seeds, 95% t-interval)`,
    xTitle: 'attempt k',
    yTitle: 'pass@k',
    percent: true,
    points,
    empty: 'no evaluation',
  });
}

export interface ExperimentReportFiles {
  readonly results: string;
  readonly markdown: string;
  readonly images: readonly string[];
}

/** Writes results.json, report.md and the charts of an experiment into `outDir`. */
export async function writeExperimentReport(
  evals: readonly ExperimentEvalV1[],
  outDir: string,
  header: { readonly title: string; readonly lines: readonly string[] },
  references?: ReferenceValuesV1,
): Promise<ExperimentReportFiles> {
  const results = experimentResults(evals);
  const resultsPath = join(outDir, 'results.json');
  await writeJsonAtomic(resultsPath, results);
  const suites = [...new Set(results.rows.map((r) => r.suite))];
  const images: string[] = [];
  const charts = await Promise.all(
    suites.map((s) =>
      suiteChart(
        s,
        results.rows.filter((r) => r.suite === s),
      ),
    ),
  );
  if (charts.length > 0) {
    const chart = chartGrid(charts, 2);
    await writeFileAtomic(join(outDir, 'success-by-attempt.svg'), chart.svg);
    await writeFileAtomic(join(outDir, 'success-by-attempt.png'), renderPng(chart.svg));
    images.push(join(outDir, 'success-by-attempt.svg'), join(outDir, 'success-by-attempt.png'));
  }
  const times = [...new Map(results.rows.map((r) => [r.label, r])).values()];
  const md = [
    `# ${header.title}`,
    '',
    ...header.lines,
    '',
    'Numbers are means over seeds with a 95% Student-t interval in brackets (none for one seed); each seed',
    'evaluates every policy on the same tasks, opponents and sampling, with the memory named per row.',
    '',
    ...suites.flatMap((s) => {
      const rows = results.rows.filter((r) => r.suite === s);
      return [
        `## ${s}`,
        '',
        ...suiteTable(rows),
        '',
        ...opponentTable(rows),
        ...returnTable(rows),
        ...(references ? referenceTable(rows, references) : []),
      ];
    }),
    '## Wall time per seed',
    '',
    '| policy | train (s) | one evaluation (s) |',
    '|---|---:|---:|',
    ...times.map((r) => `| ${r.label} | ${r.trainSeconds.toFixed(0)} | ${r.evalSeconds.toFixed(0)} |`),
    '',
    ...(images.length > 0 ? ['![success by attempt](success-by-attempt.png)', ''] : []),
  ].join('\n');
  const markdown = join(outDir, 'report.md');
  await writeFileAtomic(markdown, md);
  return { results: resultsPath, markdown, images };
}
