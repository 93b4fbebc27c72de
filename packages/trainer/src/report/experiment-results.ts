/**
 * The results of a `mage experiment`: per policy, evaluation protocol (memory) and suite, the mean over
 * seeds with a 95% Student-t interval of pass@k per attempt, the attempt-1 → K gain, the invalid-move
 * rate and the mean return per attempt, plus per-opponent means, the memory benefits (with minus without
 * memory) and the notes benefits (own notes minus foreign notes) (`results.json`).
 */

import {
  type MeanIntervalV1,
  type MetaEpisodeMetricsV1,
  type MetricsSummaryV1,
  meanInterval,
  ratioOfMeansInterval,
} from '@mage-rl/core';
import type { ForeignNoteSwapsV1 } from '../evaluate/foreign-notes';
import type { ExperimentEvalV1 } from '../experiment/experiment';
import { WARM_START } from '../experiment/experiment-spec';
import { identificationCeiling } from './reference-values';

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
  /**
   * Per attempt, the share of the adaptive headroom the memory took: mean(with − without) / mean(ceiling −
   * without) over the seeds, in the headroom's measure, with its interval (`ratioOfMeansInterval`); `null`
   * where the ceiling is not above the memoryless level on average.
   */
  readonly headroomShare?: {
    readonly measure: string;
    readonly perAttempt: readonly (MeanIntervalV1 | null)[];
  };
}

/**
 * What a perfect reader of the notes reaches per attempt (`ceiling`), and a policy's level at attempt k
 * (0-based) in the same measure, `undefined` when its metrics do not hold it. See architecture/trainer.md.
 */
export interface AdaptiveHeadroom {
  /** What the levels measure (`pass@k`, `chips per hand under the population`). */
  readonly measure: string;
  readonly ceiling: readonly number[];
  level(metrics: MetaEpisodeMetricsV1, attempt: number): number | undefined;
}

/** The headroom of each evaluation suite, by suite name (`undefined`: none known). */
export type HeadroomOf = (suite: string) => AdaptiveHeadroom | undefined;

/** The headroom of a task whose perfect reader's pass@k is `ceiling` (Treasure, Doors). */
export function passAtKHeadroom(ceiling: readonly number[]): AdaptiveHeadroom {
  return {
    measure: 'pass@k',
    ceiling,
    level: (m, k) => m.overall.perAttempt[Math.min(k, m.overall.perAttempt.length - 1)]?.passAtK.rate,
  };
}

/** Below this mean gap between the ceiling and the memoryless level an attempt has no headroom to share. */
const MIN_HEADROOM = 1e-9;

/**
 * The share of the headroom taken at each attempt over the seeds: the mean benefit over the mean headroom
 * (a ratio of means, finite when one seed's memoryless level is near the ceiling), with its interval.
 */
function headroomShare(
  pairs: readonly { readonly with: MetaEpisodeMetricsV1; readonly without: MetaEpisodeMetricsV1 }[],
  headroom: AdaptiveHeadroom,
): NonNullable<BenefitAggregateV1['headroomShare']> {
  const perAttempt = headroom.ceiling.map((c, k) => {
    const gains: number[] = [];
    const room: number[] = [];
    for (const p of pairs) {
      const w = headroom.level(p.with, k);
      const wo = headroom.level(p.without, k);
      if (w === undefined || wo === undefined) return null;
      gains.push(w - wo);
      room.push(c - wo);
    }
    return ratioOfMeansInterval(gains, room, MIN_HEADROOM) ?? null;
  });
  return { measure: headroom.measure, perAttempt };
}

/**
 * What a memory is worth to a policy: the same weights on the same tasks and seeds, once with the memory
 * and once with the protocol `versus` (K attempts each), paired by seed. Versus `none` (K independent
 * attempts): the memory benefit. Versus `foreign-notes` (the memory being `reflection`): own notes minus
 * another meta-episode's, what reading the notes is worth beyond their presence.
 */
export interface MemoryBenefitV1 {
  readonly label: string;
  readonly method: string;
  /** The memory compared with `versus`. */
  readonly memory: string;
  readonly versus: BenefitVersus;
  readonly suite: string;
  readonly domain: 'in' | 'out';
  readonly overall: BenefitAggregateV1;
  readonly byOpponent: Readonly<Record<string, BenefitAggregateV1>>;
  /**
   * Own minus foreign notes only, summed over the seeds whose foreign-notes record has them: how many notes
   * were swapped and how many of those read as the replaced one (swaps the control cannot see).
   */
  readonly swaps?: ForeignNoteSwapsV1;
}

/**
 * A trained policy beside the warm start it started from (each seed's policies start from that seed's warm
 * start and play the same tasks), at pass@K: with a memory minus the warm start with the same memory, and
 * the memoryless levels of both. A memory benefit of the trained weights can grow because their memoryless
 * play fell below the warm start's, not because the memory helps more; these numbers show which.
 */
export interface WarmStartComparisonV1 {
  readonly label: string;
  readonly method: string;
  /** The memory of the with-memory comparison (every protocol but `none`). */
  readonly memory: string;
  readonly suite: string;
  readonly domain: 'in' | 'out';
  /** K: the comparisons are at pass@K. */
  readonly attempts: number;
  /** pass@K with `memory` minus the warm start's with `memory`, per seed, as a mean over seeds. */
  readonly withMemory: MeanIntervalV1 & { readonly seeds: readonly number[] };
  /**
   * pass@K with no memory of the trained weights and of the warm start, over the seeds both were evaluated
   * with no memory, and their per-seed difference; absent when no seed has both.
   */
  readonly withoutMemory?: {
    readonly seeds: readonly number[];
    readonly trained: MeanIntervalV1;
    readonly warmStart: MeanIntervalV1;
    readonly difference: MeanIntervalV1;
  };
}

/** pass@K of a record's suite, K its last attempt, or undefined when the record lacks the suite. */
function lastPass(e: ExperimentEvalV1 | undefined, suite: string): { k: number; rate: number } | undefined {
  const attempts = e?.suites.find((s) => s.name === suite)?.metrics.overall.perAttempt;
  const last = attempts?.at(-1);
  return attempts && last ? { k: attempts.length, rate: last.passAtK.rate } : undefined;
}

/**
 * Every trained policy, memory (not `none`) and suite evaluated with that memory at a seed where the warm
 * start was too: pass@K with the memory minus the warm start's, and both memoryless levels, paired by seed.
 */
export function warmStartComparisons(evals: readonly ExperimentEvalV1[]): WarmStartComparisonV1[] {
  const key = (label: string, memory: string, seed: number) => `${label}\u0000${memory}\u0000${seed}`;
  const byKey = new Map(evals.map((e) => [key(e.label, e.memory, e.seed), e]));
  const warm = (memory: string, seed: number) =>
    evals.find((w) => w.method === WARM_START && w.memory === memory && w.seed === seed);
  const groups = new Map<string, { first: ExperimentEvalV1; suite: string; records: ExperimentEvalV1[] }>();
  for (const e of evals) {
    if (e.method === WARM_START || e.memory === 'none') continue;
    for (const s of e.suites) {
      if (lastPass(warm(e.memory, e.seed), s.name) === undefined) continue;
      const g = `${e.label}\u0000${e.memory}\u0000${s.name}`;
      const group = groups.get(g) ?? { first: e, suite: s.name, records: [] };
      group.records.push(e);
      groups.set(g, group);
    }
  }
  return [...groups.values()].map(({ first, suite, records }) => {
    const pairs = records.map((e) => ({
      seed: e.seed,
      a: lastPass(e, suite)!,
      b: lastPass(warm(e.memory, e.seed), suite)!,
    }));
    const memoryless = records.flatMap((e) => {
      const a = lastPass(byKey.get(key(e.label, 'none', e.seed)), suite);
      const b = lastPass(warm('none', e.seed), suite);
      return a && b ? [{ seed: e.seed, a: a.rate, b: b.rate }] : [];
    });
    return {
      label: first.label,
      method: first.method,
      memory: first.memory,
      suite,
      domain: first.suites.find((s) => s.name === suite)!.domain,
      attempts: Math.min(...pairs.map((p) => Math.min(p.a.k, p.b.k))),
      withMemory: { ...meanInterval(pairs.map((p) => p.a.rate - p.b.rate)), seeds: pairs.map((p) => p.seed) },
      ...(memoryless.length === 0
        ? {}
        : {
            withoutMemory: {
              seeds: memoryless.map((p) => p.seed),
              trained: meanInterval(memoryless.map((p) => p.a)),
              warmStart: meanInterval(memoryless.map((p) => p.b)),
              difference: meanInterval(memoryless.map((p) => p.a - p.b)),
            },
          }),
    };
  });
}

/** What a benefit is measured against: no memory, or the same memory showing foreign notes. */
export type BenefitVersus = 'none' | 'foreign-notes';

export interface ExperimentResultsV1 {
  readonly format: typeof EXPERIMENT_RESULTS_FORMAT;
  readonly rows: readonly ExperimentRowV1[];
  /** One entry per policy, suite and memory that was also evaluated with no memory (`versus: 'none'`). */
  readonly memoryBenefit: readonly MemoryBenefitV1[];
  /**
   * Own notes minus foreign notes: one entry per policy and suite evaluated with `reflection` and with
   * `foreign-notes` at some of the same seeds (`memory: 'reflection'`, `versus: 'foreign-notes'`); no
   * identification ceiling or headroom share, which are about the benefit over no memory.
   */
  readonly notesBenefit: readonly MemoryBenefitV1[];
  /**
   * Every trained policy beside the warm start at pass@K (`warmStartComparisons`); absent from results
   * written before it existed, empty without a warm start evaluated at the same seeds.
   */
  readonly versusWarmStart?: readonly WarmStartComparisonV1[];
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

/** A policy's evaluations with a memory and with the protocol it is compared with, per suite, paired by seed. */
interface PairedGroup {
  readonly first: ExperimentEvalV1;
  readonly suite: string;
  readonly pairs: [ExperimentEvalV1, ExperimentEvalV1][];
}

/**
 * Every (policy, suite, memory) evaluated with `memory` and with `versus` at some of the same seeds:
 * the memories compared are every one but `none` against `none`, and `reflection` against `foreign-notes`.
 */
function pairedGroups(evals: readonly ExperimentEvalV1[], versus: BenefitVersus): PairedGroup[] {
  const key = (e: ExperimentEvalV1, memory: string) => `${e.label}\u0000${memory}\u0000${e.seed}`;
  const byKey = new Map(evals.map((e) => [key(e, e.memory), e]));
  const compared = (memory: string) => (versus === 'none' ? memory !== 'none' : memory === 'reflection');
  const groups = new Map<string, PairedGroup>();
  for (const e of evals) {
    const other = compared(e.memory) ? byKey.get(key(e, versus)) : undefined;
    if (!other) continue;
    for (const s of e.suites) {
      if (!other.suites.some((w) => w.name === s.name)) continue;
      const g = `${e.label}\u0000${e.memory}\u0000${s.name}`;
      const group = groups.get(g) ?? { first: e, suite: s.name, pairs: [] };
      group.pairs.push([e, other]);
      groups.set(g, group);
    }
  }
  return [...groups.values()];
}

/** The per-seed differences of a group, overall and per opponent, plus `extra` on the overall one. */
function groupBenefit(
  { first, suite, pairs }: PairedGroup,
  versus: BenefitVersus,
  extra: Partial<BenefitAggregateV1> = {},
): MemoryBenefitV1 {
  const metrics = (e: ExperimentEvalV1) => e.suites.find((s) => s.name === suite)!;
  const opponents = [...new Set(pairs.flatMap(([e]) => Object.keys(metrics(e).metrics.byOpponent)))].sort();
  const summaries = (of: (m: MetaEpisodeMetricsV1) => MetricsSummaryV1 | undefined) =>
    pairs.flatMap(([w, wo]) => {
      const a = of(metrics(w).metrics);
      const b = of(metrics(wo).metrics);
      return a && b ? [{ seed: w.seed, with: a, without: b }] : [];
    });
  return {
    label: first.label,
    method: first.method,
    memory: first.memory,
    versus,
    suite,
    domain: metrics(first).domain,
    overall: { ...benefit(summaries((m) => m.overall)), ...extra },
    byOpponent: Object.fromEntries(opponents.map((o) => [o, benefit(summaries((m) => m.byOpponent[o]))])),
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
  headroomOf?: HeadroomOf,
): MemoryBenefitV1[] {
  return pairedGroups(evals, 'none').map((group) => {
    const { suite, pairs } = group;
    const metrics = (e: ExperimentEvalV1) => e.suites.find((s) => s.name === suite)!.metrics;
    const ceilings = pairs.flatMap(([, without]) => {
      const c = identificationCeiling(metrics(without), identifiable);
      return c === undefined ? [] : [c];
    });
    const ceiling = ceilings.length === pairs.length ? meanInterval(ceilings) : undefined;
    const headroom = headroomOf?.(suite);
    return groupBenefit(group, 'none', {
      ...(ceiling ? { identificationCeiling: ceiling } : {}),
      ...(headroom
        ? {
            headroomShare: headroomShare(
              pairs.map(([w, wo]) => ({ with: metrics(w), without: metrics(wo) })),
              headroom,
            ),
          }
        : {}),
    });
  });
}

/**
 * Own notes minus foreign notes: every (policy, suite) evaluated with `reflection` and with
 * `foreign-notes` at some of the same seeds, the differences paired by seed, overall and per opponent.
 */
export function notesBenefits(evals: readonly ExperimentEvalV1[]): MemoryBenefitV1[] {
  return pairedGroups(evals, 'foreign-notes').map((group) => {
    const swaps = group.pairs.flatMap(([, f]) => f.suites.find((s) => s.name === group.suite)?.swaps ?? []);
    const sum = (of: (s: ForeignNoteSwapsV1) => number) => swaps.reduce((a, s) => a + of(s), 0);
    return {
      ...groupBenefit(group, 'foreign-notes'),
      ...(swaps.length > 0
        ? { swaps: { replaced: sum((s) => s.replaced), sameText: sum((s) => s.sameText) } }
        : {}),
    };
  });
}

/**
 * Groups the evaluation records by policy, memory and suite and aggregates over seeds; `identifiable`: the
 * opponents of the memory benefit's identification ceiling; `headroomOf`: what its headroom share is of, per suite.
 */
export function experimentResults(
  evals: readonly ExperimentEvalV1[],
  identifiable: readonly string[] = [],
  headroomOf?: HeadroomOf,
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
  const rank = new Map(rows.map((r, i) => [`${r.label}\u0000${r.memory}`, i]));
  const ranked = <T extends { readonly label: string; readonly memory: string }>(benefits: T[]) =>
    benefits.sort(
      (a, b) =>
        (rank.get(`${a.label}\u0000${a.memory}`) ?? 0) - (rank.get(`${b.label}\u0000${b.memory}`) ?? 0),
    );
  return {
    format: EXPERIMENT_RESULTS_FORMAT,
    rows,
    memoryBenefit: ranked(memoryBenefits(evals, identifiable, headroomOf)),
    notesBenefit: ranked(notesBenefits(evals)),
    versusWarmStart: ranked(warmStartComparisons(evals)),
  };
}
