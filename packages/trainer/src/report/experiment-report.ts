/**
 * The results of a `mage experiment`: per policy, evaluation protocol (memory) and suite, the mean over
 * seeds with a 95% Student-t interval of pass@k per attempt, the attempt-1 → K gain, the invalid-move
 * rate and the mean return per attempt, plus per-opponent means; written as `results.json`, `report.md`
 * and success-by-attempt charts (SVG + PNG).
 */

import { join } from 'node:path';
import {
  type MeanIntervalV1,
  type MetaEpisodeMetricsV1,
  type MetricsSummaryV1,
  meanInterval,
  writeFileAtomic,
  writeJsonAtomic,
} from '@mage-rl/core';
import type { ChartPoint } from '@mage-rl/dashboard';
import type { ExperimentEvalV1 } from '../experiment/experiment';
import { renderPng } from './png';
import {
  ceilingShare,
  identificationCeiling,
  type OpponentReferenceV1,
  type ReferenceValuesV1,
} from './reference-values';
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
  /** Notes stopped by the note budget over all reflect turns (when measured and notes were written). */
  readonly cutNoteRate?: MeanIntervalV1;
  /** The share of each finished attempt's facts its note states (when measured and notes were written). */
  readonly noteRecall?: MeanIntervalV1;
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

/** With-memory minus no-memory differences of one summary, per seed, and their means over seeds. */
export interface BenefitAggregateV1 {
  readonly seeds: readonly number[];
  /** pass@k with the memory minus pass@k without, k = 1..K. */
  readonly passAtK: readonly MeanIntervalV1[];
  /** Mean return of attempt k with the memory minus without (the env's reward units). */
  readonly meanReturn: readonly MeanIntervalV1[];
  readonly invalidActionRate: MeanIntervalV1;
  /**
   * The most pass@K the memory could add by identifying the opponent: the share of meta-episodes that the
   * policy with no memory lost at pass@K against opponents a perfect reader beats once one game has shown
   * their moves (`identifiableOpponents`). Present on the overall benefit of suites that hold such opponents.
   */
  readonly identificationCeiling?: MeanIntervalV1;
}

/**
 * What a memory is worth to a policy: the same weights on the same tasks and seeds, once with the memory
 * and once with none (K independent attempts), paired by seed.
 */
export interface MemoryBenefitV1 {
  readonly label: string;
  readonly method: string;
  /** The memory compared with `none`. */
  readonly memory: string;
  readonly suite: string;
  readonly domain: 'in' | 'out';
  readonly overall: BenefitAggregateV1;
  readonly byOpponent: Readonly<Record<string, BenefitAggregateV1>>;
}

export interface ExperimentResultsV1 {
  readonly format: typeof EXPERIMENT_RESULTS_FORMAT;
  readonly rows: readonly ExperimentRowV1[];
  /** One entry per policy, suite and memory that was also evaluated with no memory. */
  readonly memoryBenefit: readonly MemoryBenefitV1[];
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
    ...(summaries.every((s) => (s.cutReflectionRate?.trials ?? 0) > 0)
      ? { cutNoteRate: meanInterval(summaries.map((s) => s.cutReflectionRate?.rate ?? 0)) }
      : {}),
    ...(summaries.every((s) => s.noteRecall !== undefined)
      ? { noteRecall: meanInterval(summaries.map((s) => s.noteRecall ?? 0)) }
      : {}),
    meanReturn: Array.from({ length: k }, (_, i) => at(i, (a) => a.meanReturn)),
    metaEpisodesPerSeed: summaries[0]?.metaEpisodes ?? 0,
  };
}

/** The per-seed differences `with − without` of paired summaries, as means over seeds. */
function benefit(
  pairs: readonly {
    readonly seed: number;
    readonly with: MetricsSummaryV1;
    readonly without: MetricsSummaryV1;
  }[],
): BenefitAggregateV1 {
  const k = Math.max(...pairs.map((p) => Math.min(p.with.perAttempt.length, p.without.perAttempt.length)));
  const attempt = (s: MetricsSummaryV1, i: number) => s.perAttempt[Math.min(i, s.perAttempt.length - 1)]!;
  const diff = (i: number, f: (a: MetricsSummaryV1['perAttempt'][number]) => number) =>
    meanInterval(pairs.map((p) => f(attempt(p.with, i)) - f(attempt(p.without, i))));
  return {
    seeds: pairs.map((p) => p.seed),
    passAtK: Array.from({ length: k }, (_, i) => diff(i, (a) => a.passAtK.rate)),
    meanReturn: Array.from({ length: k }, (_, i) => diff(i, (a) => a.meanReturn)),
    invalidActionRate: meanInterval(
      pairs.map((p) => p.with.invalidActionRate.rate - p.without.invalidActionRate.rate),
    ),
  };
}

/**
 * Every (policy, suite, memory ≠ none) that was also evaluated with no memory at some of the same seeds:
 * the differences paired by seed, overall and per opponent, with the identification ceiling where the suite
 * holds `identifiable` opponents.
 */
export function memoryBenefits(
  evals: readonly ExperimentEvalV1[],
  identifiable: readonly string[] = [],
): MemoryBenefitV1[] {
  const key = (e: ExperimentEvalV1, memory: string) => `${e.label}\u0000${memory}\u0000${e.seed}`;
  const byKey = new Map(evals.map((e) => [key(e, e.memory), e]));
  const groups = new Map<
    string,
    { first: ExperimentEvalV1; suite: string; pairs: [ExperimentEvalV1, ExperimentEvalV1][] }
  >();
  for (const e of evals) {
    const without = e.memory === 'none' ? undefined : byKey.get(key(e, 'none'));
    if (!without) continue;
    for (const s of e.suites) {
      if (!without.suites.some((w) => w.name === s.name)) continue;
      const g = `${e.label}\u0000${e.memory}\u0000${s.name}`;
      const group = groups.get(g) ?? { first: e, suite: s.name, pairs: [] };
      group.pairs.push([e, without]);
      groups.set(g, group);
    }
  }
  return [...groups.values()].map(({ first, suite, pairs }): MemoryBenefitV1 => {
    const metrics = (e: ExperimentEvalV1) => e.suites.find((s) => s.name === suite)!;
    const opponents = [...new Set(pairs.flatMap(([e]) => Object.keys(metrics(e).metrics.byOpponent)))].sort();
    const summaries = (of: (m: MetaEpisodeMetricsV1) => MetricsSummaryV1 | undefined) =>
      pairs.flatMap(([w, wo]) => {
        const a = of(metrics(w).metrics);
        const b = of(metrics(wo).metrics);
        return a && b ? [{ seed: w.seed, with: a, without: b }] : [];
      });
    const ceilings = pairs.flatMap(([, without]) => {
      const c = identificationCeiling(metrics(without).metrics, identifiable);
      return c === undefined ? [] : [c];
    });
    const ceiling = ceilings.length === pairs.length ? meanInterval(ceilings) : undefined;
    const overall = benefit(summaries((m) => m.overall));
    return {
      label: first.label,
      method: first.method,
      memory: first.memory,
      suite,
      domain: metrics(first).domain,
      overall: ceiling ? { ...overall, identificationCeiling: ceiling } : overall,
      byOpponent: Object.fromEntries(opponents.map((o) => [o, benefit(summaries((m) => m.byOpponent[o]))])),
    };
  });
}

/**
 * Groups the evaluation records by policy, memory and suite and aggregates over seeds; `identifiable`: the
 * opponents of the memory benefit's identification ceiling.
 */
export function experimentResults(
  evals: readonly ExperimentEvalV1[],
  identifiable: readonly string[] = [],
): ExperimentResultsV1 {
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
  const benefits = memoryBenefits(evals, identifiable);
  const rank = new Map(rows.map((r, i) => [`${r.label}\u0000${r.memory}`, i]));
  benefits.sort(
    (a, b) => (rank.get(`${a.label}\u0000${a.memory}`) ?? 0) - (rank.get(`${b.label}\u0000${b.memory}`) ?? 0),
  );
  return { format: EXPERIMENT_RESULTS_FORMAT, rows, memoryBenefit: benefits };
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
  // Note columns once measured (records written before them have none).
  const noteColumns = [
    { title: 'notes cut %', of: (r: ExperimentRowV1) => r.overall.cutNoteRate },
    { title: 'notes recall %', of: (r: ExperimentRowV1) => r.overall.noteRecall },
  ].filter((c) => rows.some((r) => c.of(r)));
  const noteCells = (r: ExperimentRowV1) =>
    noteColumns.map((c) => {
      const m = c.of(r);
      return ` ${m ? withInterval(m) : ''} |`;
    });
  return [
    `| policy | eval memory | seeds | ${Array.from({ length: k }, (_, i) => `pass@${i + 1} %`).join(' | ')} | gain 1→${k} (pts) | invalid moves % |${noteColumns.map((c) => ` ${c.title} |`).join('')}`,
    `|---|---|---:|${'---:|'.repeat(k)}---:|---:|${'---:|'.repeat(noteColumns.length)}`,
    ...rows.map(
      (r) =>
        `| ${r.label} | ${r.memory} | ${r.overall.seeds.length} | ${r.overall.passAtK.map((m) => withInterval(m)).join(' | ')} | ${withInterval(r.overall.gain, false)} | ${withInterval(r.overall.invalidActionRate)} |${noteCells(r).join('')}`,
    ),
  ];
}

/** A difference in points (or return units): signed, with its interval when there are several values. */
export function signed(m: MeanIntervalV1, scale = 100, digits = 1): string {
  const f = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(scale * x).toFixed(digits)}`;
  return m.n > 1 ? `${f(m.mean)} [${f(m.low)}, ${f(m.high)}]` : f(m.mean);
}

/**
 * The memory benefit of every policy: pass@k (and invalid moves) with the memory minus with none, same
 * weights, tasks and seeds.
 */
export function benefitTable(benefits: readonly MemoryBenefitV1[]): string[] {
  if (benefits.length === 0) return [];
  const k = Math.max(...benefits.map((b) => b.overall.passAtK.length));
  const ceilings = benefits.some((b) => b.overall.identificationCeiling);
  // The ceiling's cells after the invalid-moves cell: its points and the share of it the memory gained.
  const ceilingCells = (b: MemoryBenefitV1): string => {
    const c = b.overall.identificationCeiling;
    if (!ceilings) return '';
    if (!c) return '  |  |';
    const share = ceilingShare(b.overall.passAtK[b.overall.passAtK.length - 1]!.mean, c.mean);
    return ` ${withInterval(c)} | ${share ?? '—'} |`;
  };
  return [
    'Memory benefit: the same weights on the same tasks, with the memory minus with no memory (K independent',
    'attempts), in points; paired by seed.',
    ...(ceilings
      ? [
          `Identification ceiling: the pass@${k} that the memory could add at most by identifying the opponent, the`,
          'no-memory losses against opponents that play one move for sure and lose to their best response from',
          'either seat (one game shows their moves; a perfect reader then wins every later attempt); the share is',
          `the memory benefit at pass@${k} over it. Other opponents (random, MCTS) add nothing to it.`,
        ]
      : []),
    '',
    `| policy | memory | seeds | ${Array.from({ length: k }, (_, i) => `pass@${i + 1} (pts)`).join(' | ')} | invalid moves (pts) |${ceilings ? ` identification ceiling pass@${k} (pts) | share of ceiling |` : ''}`,
    `|---|---|---:|${'---:|'.repeat(k)}---:|${ceilings ? '---:|---:|' : ''}`,
    ...benefits.map(
      (b) =>
        `| ${b.label} | ${b.memory} − none | ${b.overall.seeds.length} | ${b.overall.passAtK.map((m) => signed(m)).join(' | ')} | ${signed(b.overall.invalidActionRate)} |${ceilingCells(b)}`,
    ),
    '',
  ];
}

/** Per opponent, the memory benefit in return per attempt (in the game's unit when it has references). */
function returnBenefitTable(benefits: readonly MemoryBenefitV1[], refs?: ReferenceValuesV1): string[] {
  const opponents = [...new Set(benefits.flatMap((b) => Object.keys(b.byOpponent)))].sort();
  if (benefits.length === 0 || opponents.length === 0) return [];
  const scale = refs ? 1 / refs.rewardPerReturn : 1;
  const cell = (b: BenefitAggregateV1 | undefined) =>
    b ? b.meanReturn.map((m) => signed(m, scale, refs ? 3 : 2)).join(' → ') : '';
  const k = Math.max(...benefits.map((b) => b.overall.meanReturn.length));
  return [
    `Memory benefit in return per attempt 1 → ${k} (${refs ? refs.unit : 'reward units'}), with minus without:`,
    '',
    `| policy | memory | overall | ${opponents.join(' | ')} |`,
    `|---|---|---|${'---|'.repeat(opponents.length)}`,
    ...benefits.map(
      (b) =>
        `| ${b.label} | ${b.memory} − none | ${cell(b.overall)} | ${opponents.map((o) => cell(b.byOpponent[o])).join(' | ')} |`,
    ),
    '',
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

/**
 * A row's return per attempt in the game's unit under the ceiling's population (its opponents weighted by
 * their prior weights); undefined without a ceiling or when the row lacks one of those opponents.
 */
function underPrior(r: ExperimentRowV1, refs: ReferenceValuesV1): number[] | undefined {
  const ceiling = refs.ceiling;
  if (!ceiling || ceiling.population.some((e) => !r.byOpponent[e.id])) return undefined;
  const total = ceiling.population.reduce((a, e) => a + e.weight, 0);
  return ceiling.perAttempt.map((_, k) =>
    ceiling.population.reduce((a, e) => {
      const s = r.byOpponent[e.id] as SummaryAggregateV1;
      const m = s.meanReturn[Math.min(k, s.meanReturn.length - 1)] as MeanIntervalV1;
      return a + (e.weight / total) * (m.mean / refs.rewardPerReturn);
    }, 0),
  );
}

/**
 * The adaptation ceiling per attempt beside every policy: under the training population (members weighted
 * by the prior) with the share of the ceiling's value each attempt takes, and per opponent.
 */
function ceilingTable(rows: readonly ExperimentRowV1[], refs: ReferenceValuesV1): string[] {
  const ceiling = refs.ceiling;
  if (!ceiling) return [];
  const opponents = Object.keys(refs.byOpponent).filter(
    (o) => refs.byOpponent[o]?.ceiling && rows.some((r) => r.byOpponent[o]),
  );
  const total = ceiling.population.reduce((a, e) => a + e.weight, 0);
  const perUnit = (m: MeanIntervalV1) => m.mean / refs.rewardPerReturn;
  const share = (x: number, c: number) => (c > 0 ? ` (${(100 * (x / c)).toFixed(0)}%)` : '');
  const values = (xs: readonly number[]) => xs.map((x) => x.toFixed(3)).join(' → ');
  const weights = ceiling.population.map((e) => `${e.id} ${+(e.weight / total).toFixed(3)}`).join(', ');
  return [
    `Adaptation ceiling: what the exact Bayes-optimal agent that knows the training population (${weights})`,
    `earns per attempt in ${refs.unit}, seats mixed; beside it every policy, and in brackets the share of the`,
    "ceiling's value that attempt takes under the population:",
    '',
    `| policy | eval memory | under the population | ${opponents.join(' | ')} |`,
    `|---|---|---|${'---|'.repeat(opponents.length)}`,
    `| adaptation ceiling | exact | ${values(ceiling.perAttempt)} | ${opponents.map((o) => values(refs.byOpponent[o]!.ceiling!)).join(' | ')} |`,
    ...rows.map((r) => {
      const prior = underPrior(r, refs);
      const overall = prior
        ? prior.map((x, k) => `${x.toFixed(3)}${share(x, ceiling.perAttempt[k]!)}`).join(' → ')
        : '';
      const cells = opponents.map((o) => {
        const s = r.byOpponent[o];
        return s ? values(s.meanReturn.map(perUnit)) : '';
      });
      return `| ${r.label} | ${r.memory} | ${overall} | ${cells.join(' | ')} |`;
    }),
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

/**
 * Returns in the game's unit by attempt beside the adaptation ceiling: one panel under the ceiling's
 * population (means over seeds) and one per opponent with a ceiling (95% t-intervals). Empty without a
 * ceiling.
 */
function returnCharts(
  suite: string,
  rows: readonly ExperimentRowV1[],
  refs: ReferenceValuesV1,
): Promise<Chart[]> {
  const ceiling = refs.ceiling;
  if (!ceiling) return Promise.resolve([]);
  const dashed = (r: ExperimentRowV1) => (r.memory !== rows[0]?.memory ? { dashed: true } : {});
  const ceilingPoints = (values: readonly number[]): ChartPoint[] =>
    values.map((y, i) => ({ label: 'adaptation ceiling', x: i + 1, y }));
  const panel = (id: string, title: string, points: ChartPoint[]) =>
    vegaChart({ id, title, xTitle: 'attempt k', yTitle: refs.unit, points, empty: 'no evaluation' });
  const underPopulation = rows.flatMap((r) =>
    (underPrior(r, refs) ?? []).map((y, i) => ({
      label: `${r.label} (${r.memory})`,
      x: i + 1,
      y,
      ...dashed(r),
    })),
  );
  // A suite without the population's opponents (out of domain) gets no population panel.
  const population =
    underPopulation.length === 0
      ? []
      : [
          panel(
            `returns-${suite}-population`,
            `${suite}: ${refs.unit} under the training population (mean over seeds)`,
            [...ceilingPoints(ceiling.perAttempt), ...underPopulation],
          ),
        ];
  const opponents = Object.keys(refs.byOpponent).filter(
    (o) => refs.byOpponent[o]?.ceiling && rows.some((r) => r.byOpponent[o]),
  );
  const perOpponent = opponents.map((o) =>
    panel(`returns-${suite}-${o}`, `${suite}: ${refs.unit} against ${o} (mean over seeds, 95% t-interval)`, [
      ...ceilingPoints(refs.byOpponent[o]?.ceiling ?? []),
      ...rows.flatMap((r) =>
        (r.byOpponent[o]?.meanReturn ?? []).map((m, i) => ({
          label: `${r.label} (${r.memory})`,
          x: i + 1,
          y: m.mean / refs.rewardPerReturn,
          lo: m.low / refs.rewardPerReturn,
          hi: m.high / refs.rewardPerReturn,
          ...dashed(r),
        })),
      ),
    ]),
  );
  return Promise.all([...population, ...perOpponent]);
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
  identifiable: readonly string[] = [],
): Promise<ExperimentReportFiles> {
  const results = experimentResults(evals, identifiable);
  const resultsPath = join(outDir, 'results.json');
  await writeJsonAtomic(resultsPath, results);
  const suites = [...new Set(results.rows.map((r) => r.suite))];
  const images: string[] = [];
  /** Lays `charts` out in two columns and writes them as `<name>.svg` and `<name>.png` (none when empty). */
  const writeCharts = async (name: string, charts: readonly Chart[]) => {
    if (charts.length === 0) return;
    const chart = chartGrid(charts, 2);
    await writeFileAtomic(join(outDir, `${name}.svg`), chart.svg);
    await writeFileAtomic(join(outDir, `${name}.png`), renderPng(chart.svg));
    images.push(join(outDir, `${name}.svg`), join(outDir, `${name}.png`));
  };
  const rowsOf = (suite: string) => results.rows.filter((r) => r.suite === suite);
  const charts = await Promise.all(suites.map((s) => suiteChart(s, rowsOf(s))));
  await writeCharts('success-by-attempt', charts);
  const returns = references
    ? (await Promise.all(suites.map((s) => returnCharts(s, rowsOf(s), references)))).flat()
    : [];
  await writeCharts('returns-by-attempt', returns);
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
      const rows = rowsOf(s);
      const benefits = results.memoryBenefit.filter((b) => b.suite === s);
      return [
        `## ${s}`,
        '',
        ...benefitTable(benefits),
        ...suiteTable(rows),
        '',
        ...opponentTable(rows),
        ...returnTable(rows),
        ...returnBenefitTable(benefits, references),
        ...(references ? referenceTable(rows, references) : []),
        ...(references ? ceilingTable(rows, references) : []),
      ];
    }),
    '## Wall time per seed',
    '',
    '| policy | train (s) | one evaluation (s) |',
    '|---|---:|---:|',
    ...times.map((r) => `| ${r.label} | ${r.trainSeconds.toFixed(0)} | ${r.evalSeconds.toFixed(0)} |`),
    '',
    ...(charts.length > 0 ? ['![success by attempt](success-by-attempt.png)', ''] : []),
    ...(returns.length > 0 ? [`![${references?.unit} by attempt](returns-by-attempt.png)`, ''] : []),
  ].join('\n');
  const markdown = join(outDir, 'report.md');
  await writeFileAtomic(markdown, md);
  return { results: resultsPath, markdown, images };
}
