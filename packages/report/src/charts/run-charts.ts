/**
 * The charts of runs' metrics (`RunMetrics`): data extractors turn them into long-format points, one
 * `ChartDef` per curve; the dashboard's curves view shows them all and `reportFigures` groups the ones a
 * run report draws. See architecture/report.md.
 */

import type { EvalStatsV1, MetaEpisodeMetricsV1, MetricsSummaryV1, UpdateStatsV1 } from '@mage-rl/core';
import type { RunMetrics } from '../metrics/run-metrics';
import type { ChartDef, ChartPoint } from './chart-spec';

type Num = number | null | undefined;
const finite = (v: Num): v is number => typeof v === 'number' && Number.isFinite(v);

/** Points of one series over iterations; `prefix` names the run when several are overlaid. */
function over<T extends { iteration: number }>(
  items: readonly T[],
  label: string,
  y: (item: T) => Num,
  dashed = false,
): ChartPoint[] {
  return items.flatMap((item) => {
    const v = y(item);
    return finite(v) ? [{ label, x: item.iteration, y: v, ...(dashed ? { dashed } : {}) }] : [];
  });
}

const prefixOf = (runs: readonly RunMetrics[], run: RunMetrics): string =>
  runs.length > 1 ? `${run.name}: ` : '';
const attemptsOf = (m: MetricsSummaryV1 | undefined): number => m?.perAttempt.length ?? 0;
const maxOf = (values: readonly number[]): number => values.reduce((a, b) => Math.max(a, b), 0);

/** Rollout pass@k for every attempt k, attempt gain and mean return, against the iteration. */
function rolloutCharts(runs: readonly RunMetrics[]): ChartDef[] {
  const k = maxOf(runs.flatMap((r) => r.rollouts.map((x) => attemptsOf(x.metrics.overall))));
  const pass = runs.flatMap((run) =>
    Array.from({ length: k }, (_, a) =>
      over(
        run.rollouts,
        `${prefixOf(runs, run)}pass@${a + 1}`,
        (x) => x.metrics.overall.perAttempt[a]?.passAtK.rate,
      ),
    ).flat(),
  );
  const gain = runs.flatMap((run) =>
    over(run.rollouts, `${prefixOf(runs, run)}pass@K − pass@1`, (x) => {
      const per = x.metrics.overall.perAttempt;
      return per.length > 0 ? per[per.length - 1]!.passAtK.rate - per[0]!.passAtK.rate : null;
    }),
  );
  const reward = runs.flatMap((run) => [
    ...over(run.rollouts, `${prefixOf(runs, run)}mean return`, (x) => x.metrics.overall.meanReturn),
    ...Array.from({ length: k }, (_, a) =>
      over(
        run.rollouts,
        `${prefixOf(runs, run)}attempt ${a + 1}`,
        (x) => x.metrics.overall.perAttempt[a]?.meanReturn,
        true,
      ),
    ).flat(),
  ]);
  const invalid = runs.flatMap((run) => [
    ...over(
      run.rollouts,
      `${prefixOf(runs, run)}invalid moves`,
      (x) => x.metrics.overall.invalidActionRate.rate,
    ),
    ...over(
      run.rollouts,
      `${prefixOf(runs, run)}invalid reflections`,
      (x) => x.metrics.overall.invalidReflectionRate.rate,
      true,
    ),
  ]);
  const it = 'iteration';
  return [
    {
      id: 'pass-at-k',
      title: 'Rollout pass@k per attempt',
      xTitle: it,
      yTitle: 'pass@k',
      percent: true,
      points: pass,
      empty: 'no rollouts yet',
    },
    {
      id: 'attempt-gain',
      title: 'Attempt gain (rollouts)',
      xTitle: it,
      yTitle: 'pass@K − pass@1',
      points: gain,
      empty: 'no rollouts yet',
    },
    {
      id: 'reward',
      title: 'Reward: mean return (per attempt dashed)',
      xTitle: it,
      yTitle: 'return',
      points: reward,
      empty: 'no rollouts yet',
    },
    {
      id: 'invalid',
      title: 'Invalid turns (rollouts)',
      xTitle: it,
      yTitle: 'rate',
      percent: true,
      points: invalid,
      empty: 'no rollouts yet',
    },
  ];
}

/** Loss, KL and entropy, throughput. */
function updateCharts(runs: readonly RunMetrics[]): ChartDef[] {
  const it = 'iteration';
  const empty = 'no updates yet';
  const each = (f: (run: RunMetrics, p: string) => ChartPoint[]) =>
    runs.flatMap((r) => f(r, prefixOf(runs, r)));
  return [
    {
      id: 'loss',
      title: 'Policy loss',
      xTitle: it,
      yTitle: 'loss',
      empty,
      points: each((r, p) => over(r.updates, `${p}loss`, (u) => u.loss)),
    },
    {
      id: 'kl-entropy',
      title: 'KL to reference and entropy',
      xTitle: it,
      yTitle: 'nats / token',
      empty,
      points: each((r, p) => [
        ...over(r.updates, `${p}KL`, (u) => u.kl),
        ...over(r.updates, `${p}approx KL (old)`, (u) => u.approxKl),
        ...over(r.updates, `${p}entropy`, (u) => u.entropy, true),
      ]),
    },
    {
      id: 'throughput',
      title: 'Update throughput',
      xTitle: it,
      yTitle: 'tokens / s',
      empty,
      points: each((r, p) => over(r.updates, `${p}tokens/s`, (u) => u.timing?.tokensPerSecond)),
    },
  ];
}

/** Where the credit went: mean advantage per attempt and of reflections; truncations and shares. */
function creditCharts(runs: readonly RunMetrics[]): ChartDef[] {
  const it = 'iteration';
  const empty = 'no credit diagnostics in these runs';
  const k = maxOf(runs.flatMap((r) => r.updates.map((u) => u.credit?.attempts.length ?? 0)));
  const credit = (r: RunMetrics, label: string, f: (c: UpdateStatsV1['credit']) => Num, dashed = false) =>
    over(r.updates, label, (u) => (u.credit ? f(u.credit) : null), dashed);
  return [
    {
      id: 'credit-advantage',
      title: 'Mean advantage by attempt (reflections dashed)',
      xTitle: it,
      yTitle: 'advantage',
      empty,
      points: runs.flatMap((r) => [
        ...Array.from({ length: k }, (_, a) =>
          credit(r, `${prefixOf(runs, r)}attempt ${a + 1}`, (c) =>
            c.attempts[a]?.advantage.play.n ? c.attempts[a].advantage.play.mean : null,
          ),
        ).flat(),
        ...credit(
          r,
          `${prefixOf(runs, r)}reflections`,
          (c) => (c.advantage.reflect.n ? c.advantage.reflect.mean : null),
          true,
        ),
      ]),
    },
    {
      id: 'credit-fractions',
      title: 'Truncations, invalid turns by kind, reflection tokens',
      xTitle: it,
      yTitle: 'fraction',
      percent: true,
      empty,
      points: runs.flatMap((r) => {
        const p = prefixOf(runs, r);
        return [
          ...credit(r, `${p}truncated attempts`, (c) => c.truncationRate),
          ...credit(r, `${p}unparsed moves`, (c) => c.invalid?.format),
          ...credit(r, `${p}illegal moves`, (c) => c.invalid?.rule),
          ...credit(r, `${p}reflection share of tokens`, (c) => c.tokenShare.reflect, true),
        ];
      }),
    },
  ];
}

/** Rollout pass@K per opponent, against the iteration. */
function opponentChart(runs: readonly RunMetrics[]): ChartDef {
  const points = runs.flatMap((run) => {
    const opponents = [...new Set(run.rollouts.flatMap((x) => Object.keys(x.metrics.byOpponent)))].sort();
    return opponents.flatMap((o) =>
      over(
        run.rollouts,
        `${prefixOf(runs, run)}${o}`,
        (x) => x.metrics.byOpponent[o]?.perAttempt.at(-1)?.passAtK.rate,
      ),
    );
  });
  return {
    id: 'per-opponent',
    title: 'Rollout pass@K per opponent',
    xTitle: 'iteration',
    yTitle: 'pass@K',
    percent: true,
    points,
    empty: 'no opponents in these runs',
  };
}

function attemptPoints(label: string, m: MetricsSummaryV1 | undefined, dashed = false): ChartPoint[] {
  return (m?.perAttempt ?? []).map((a) => ({
    label,
    x: a.attempt + 1,
    y: a.passAtK.rate,
    lo: a.passAtK.low,
    hi: a.passAtK.high,
    ...(dashed ? { dashed } : {}),
  }));
}

/** The last evaluation after training started (the one before training has iteration −1). */
export const lastEval = (run: Pick<RunMetrics, 'evals'>): EvalStatsV1 | undefined =>
  run.evals.filter((e) => e.iteration >= 0).at(-1);

/** The axes and empty text of the evaluation charts: pass rates in percent. */
const PASS_RATE = { yTitle: 'pass@k', percent: true, empty: 'no evaluation yet' } as const;
/** Pass rates by attempt. */
const BY_ATTEMPT = { xTitle: 'attempt k', ...PASS_RATE } as const;

/**
 * Evaluation charts: pass@k by attempt at the last evaluation (before training dashed, for one run) per
 * domain with Wilson intervals; per opponent at the last evaluation; pass@1 and pass@K over iterations.
 */
export function evalCharts(runs: readonly RunMetrics[]): ChartDef[] {
  const domains = [
    ['inDomain', 'In-domain'],
    ['outOfDomain', 'Out-of-domain'],
  ] as const;
  const charts: ChartDef[] = domains.map(([domain, title]) => ({
    id: `eval-${domain}`,
    title: `${title}: success by attempt (last evaluation)`,
    ...BY_ATTEMPT,
    points: runs.flatMap((run) => {
      const last = lastEval(run);
      const before = run.evals.find((e) => e.iteration < 0);
      return [
        ...attemptPoints(`${run.name}${last ? ` @${last.completed}` : ''}`, last?.[domain]?.overall),
        ...(runs.length === 1
          ? attemptPoints(`${run.name} before training`, before?.[domain]?.overall, true)
          : []),
      ];
    }),
  }));
  const over = (m: MetaEpisodeMetricsV1 | null, at: 'first' | 'last') =>
    at === 'first' ? m?.overall.perAttempt[0]?.passAtK : m?.overall.perAttempt.at(-1)?.passAtK;
  charts.push({
    id: 'eval-over-time',
    title: 'In-domain evaluation over training',
    xTitle: 'updates',
    ...PASS_RATE,
    points: runs.flatMap((run) =>
      (['first', 'last'] as const).flatMap((at) =>
        run.evals.flatMap((e) => {
          const r = over(e.inDomain, at);
          const label = `${prefixOf(runs, run)}${at === 'first' ? 'pass@1' : 'pass@K'}`;
          return r
            ? [
                {
                  label,
                  x: e.completed,
                  y: r.rate,
                  lo: r.low,
                  hi: r.high,
                  ...(at === 'last' ? { dashed: true } : {}),
                },
              ]
            : [];
        }),
      ),
    ),
  });
  charts.push({
    id: 'eval-per-opponent',
    title: 'Per opponent: success by attempt (last evaluation)',
    ...BY_ATTEMPT,
    points: runs.flatMap((run) => {
      const last = lastEval(run);
      return domains.flatMap(([domain]) =>
        Object.entries(last?.[domain]?.byOpponent ?? {}).flatMap(([o, m]) =>
          attemptPoints(
            `${prefixOf(runs, run)}${o}${domain === 'outOfDomain' ? ' (OOD)' : ''}`,
            m,
            domain === 'outOfDomain',
          ),
        ),
      );
    }),
  });
  return charts;
}

/** Every chart of the dashboard's curves view, in page order. */
export function runCharts(runs: readonly RunMetrics[]): ChartDef[] {
  return [
    ...rolloutCharts(runs),
    ...evalCharts(runs),
    opponentChart(runs),
    ...updateCharts(runs),
    ...creditCharts(runs),
  ];
}

/** The charts `mage report` draws, by figure file. */
export function reportFigures(
  runs: readonly RunMetrics[],
): { file: string; title: string; charts: ChartDef[] }[] {
  const byId = new Map(runCharts(runs).map((c) => [c.id, c]));
  const pick = (...ids: string[]) => ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
  const figures = [
    {
      file: 'success-by-attempt',
      title: 'Success by attempt',
      charts: pick('eval-inDomain', 'eval-outOfDomain', 'eval-over-time'),
    },
    {
      file: 'training-curves',
      title: 'Training curves',
      charts: pick('pass-at-k', 'attempt-gain', 'reward', 'invalid', 'loss', 'kl-entropy', 'throughput'),
    },
    { file: 'credit', title: 'Where the credit went', charts: pick('credit-advantage', 'credit-fractions') },
  ];
  const opponents = pick('eval-per-opponent', 'per-opponent');
  if (opponents.some((c) => c.points.length > 0))
    figures.push({ file: 'per-opponent', title: 'Per opponent', charts: opponents });
  return figures;
}
