/**
 * The markdown tables of a run report: per domain, pass@k by attempt at each run's last evaluation, and
 * per opponent, pass@1 against pass@K. Each returns its lines (a blank line last), to join with '\n'.
 */

import type { MetricsSummaryV1 } from '@mage-rl/core';
import { lastEval } from '../charts/run-charts';
import type { RunMetrics } from '../metrics/run-metrics';

/** What the tables read of a run: its display name and its evaluations. */
export type TabledRun = Pick<RunMetrics, 'name' | 'evals'>;

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

/** Per-opponent summaries of a run's last evaluation, in-domain first. */
function lastEvalByOpponent(
  run: TabledRun,
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

/**
 * One row per run with an evaluation in `domain`: updates, meta-episodes, pass@k for k = 1..K with Wilson
 * intervals, the gain of K over 1 and the invalid-action rate; a line saying so when no run has one.
 */
export function evalSummaryTable(runs: readonly TabledRun[], domain: 'inDomain' | 'outOfDomain'): string[] {
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

/** One row per run, domain and opponent of the last evaluation: pass@1, pass@K and the gain; none when empty. */
export function evalOpponentTable(runs: readonly TabledRun[]): string[] {
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
