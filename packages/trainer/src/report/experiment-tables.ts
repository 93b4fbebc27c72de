/** The markdown tables of an experiment's `report.md`, from its results (`experiment-results.ts`). */

import type { MeanIntervalV1 } from '@mage-rl/core';
import type { ForeignNoteSwapsV1 } from '../evaluate/foreign-notes';
import type {
  BenefitAggregateV1,
  ExperimentRowV1,
  MemoryBenefitV1,
  SummaryAggregateV1,
  WarmStartComparisonV1,
} from './experiment-results';
import { ceilingShare, type OpponentReferenceV1, type ReferenceValuesV1 } from './reference-values';

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

/** A share in percent with its interval over seeds (`—` for none). */
function percentShare(m: MeanIntervalV1 | null): string {
  if (!m) return '—';
  const f = (x: number) => `${x < 0 ? '−' : ''}${Math.abs(100 * x).toFixed(0)}`;
  return m.n > 1 ? `${f(m.mean)}% [${f(m.low)}, ${f(m.high)}]` : `${f(m.mean)}%`;
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
  const headroom = benefits.find((b) => b.overall.headroomShare)?.overall.headroomShare;
  const headroomCell = (b: MemoryBenefitV1): string =>
    headroom ? ` ${(b.overall.headroomShare?.perAttempt ?? []).map(percentShare).join(' → ')} |` : '';
  return [
    'Memory benefit: the same weights on the same tasks, with the memory minus with no memory (K independent',
    'attempts), in points; paired by seed.',
    ...(headroom
      ? [
          `Share of the adaptive headroom, attempt 1 → ${k}: the mean memory benefit over the mean of what a`,
          `perfect reader adds (the ceiling minus the same weights with no memory), in ${headroom.measure}, with`,
          'its interval over seeds; — where the ceiling is not above the memoryless level on average.',
        ]
      : []),
    ...(ceilings
      ? [
          `Identification ceiling: the pass@${k} that the memory could add at most by identifying the opponent, the`,
          'no-memory losses against opponents that play one move for sure and lose to their best response from',
          'either seat (one game shows their moves; a perfect reader then wins every later attempt); the share is',
          `the memory benefit at pass@${k} over it. Other opponents (random, MCTS) add nothing to it.`,
        ]
      : []),
    '',
    `| policy | memory | seeds | ${Array.from({ length: k }, (_, i) => `pass@${i + 1} (pts)`).join(' | ')} | invalid moves (pts) |${ceilings ? ` identification ceiling pass@${k} (pts) | share of ceiling |` : ''}${headroom ? ' share of the adaptive headroom |' : ''}`,
    `|---|---|---:|${'---:|'.repeat(k)}---:|${ceilings ? '---:|---:|' : ''}${headroom ? '---:|' : ''}`,
    ...benefits.map(
      (b) =>
        `| ${b.label} | ${b.memory} − ${b.versus} | ${b.overall.seeds.length} | ${b.overall.passAtK.map((m) => signed(m)).join(' | ')} | ${signed(b.overall.invalidActionRate)} |${ceilingCells(b)}${headroomCell(b)}`,
    ),
    '',
  ];
}

/**
 * Every trained policy beside the warm start at pass@K, next to its memory benefit: with the memory minus
 * the warm start with the same memory, and the memoryless pass@K of the trained weights and of the warm start
 * with their difference, all paired by seed. A memory benefit that grows while memoryless play falls below
 * the warm start's is flattered by that fall.
 */
export function warmStartTable(
  comparisons: readonly WarmStartComparisonV1[],
  benefits: readonly MemoryBenefitV1[],
): string[] {
  if (comparisons.length === 0) return [];
  const k = Math.max(...comparisons.map((c) => c.attempts));
  const benefitOf = (c: WarmStartComparisonV1) =>
    benefits
      .find((b) => b.label === c.label && b.memory === c.memory && b.versus === 'none')
      ?.overall.passAtK.at(-1);
  const seeds = (c: WarmStartComparisonV1) => {
    const n = c.withMemory.seeds.length;
    const without = c.withoutMemory?.seeds.length;
    return without === undefined || without === n ? String(n) : `${n} (${without} with no memory)`;
  };
  return [
    `Against the warm start: pass@${k} of each trained policy minus the warm start's with the same memory, and`,
    `pass@${k} of the same weights with no memory beside the warm start's with no memory, in points; paired by`,
    'seed (each seed trains from its own warm start; both play the same tasks). A memory benefit that comes with',
    "memoryless play below the warm start's is flattered by that fall, not only earned by reading the memory.",
    '',
    `| policy | memory | seeds | memory benefit pass@${k} (pts) | pass@${k} with memory − warm start (pts) | pass@${k} no memory % | warm start pass@${k} no memory % | no memory − warm start (pts) |`,
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...comparisons.map((c) => {
      const benefit = benefitOf(c);
      const w = c.withoutMemory;
      const memoryless = w
        ? `${withInterval(w.trained)} | ${withInterval(w.warmStart)} | ${signed(w.difference)}`
        : '— | — | —';
      return `| ${c.label} | ${c.memory} | ${seeds(c)} | ${benefit ? signed(benefit) : '—'} | ${signed(c.withMemory)} | ${memoryless} |`;
    }),
    '',
  ];
}

/**
 * `10 of 40 (25.0%)`, or with `noun` `10 of 40 swapped notes (25.0%)`: the swapped notes that read as the
 * replaced ones, of all swapped notes.
 */
export function swapsText({ replaced, sameText }: ForeignNoteSwapsV1, noun = ''): string {
  return `${sameText} of ${replaced}${noun}${replaced > 0 ? ` (${pct(sameText / replaced)}%)` : ''}`;
}

/**
 * Own notes minus foreign notes for every policy: pass@k (and invalid moves) with the reflection memory
 * showing the policy's own notes minus showing other meta-episodes' notes, same weights, tasks and seeds;
 * overall and, where the suite has several opponents, per opponent.
 */
export function notesBenefitTable(benefits: readonly MemoryBenefitV1[], noteDonor?: string): string[] {
  if (benefits.length === 0) return [];
  const k = Math.max(...benefits.map((b) => b.overall.passAtK.length));
  const opponents = [...new Set(benefits.flatMap((b) => Object.keys(b.byOpponent)))].sort();
  const perOpponent = opponents.length > 1 ? opponents : [];
  const swapped = (b: MemoryBenefitV1, against: string) =>
    against !== 'all' || !b.swaps ? '' : swapsText(b.swaps);
  const row = (b: MemoryBenefitV1, against: string, m: BenefitAggregateV1) =>
    `| ${b.label} | ${against} | ${m.seeds.length} | ${m.passAtK.map((x) => signed(x)).join(' | ')} | ${signed(m.invalidActionRate)} | ${swapped(b, against)} |`;
  return [
    'Own notes minus foreign notes: the same weights on the same tasks with the reflection memory, showing their',
    'own notes minus showing, for each earlier attempt, the note (and result) another meta-episode of the',
    noteDonor === undefined
      ? 'reflection evaluation wrote after that attempt (one that played another opponent where there is one), in'
      : `note donor's (${noteDonor}) reflection evaluation of the same tasks wrote after that attempt, in`,
    'points; paired by seed. Attempt 1 follows no note, so its difference is 0; later attempts measure reading',
    'the notes rather than having notes in the context. Swaps word for word: the swapped notes that read as the',
    'replaced one after the same outcome, over all seeds; the control cannot see reading in those.',
    '',
    `| policy | opponent | seeds | ${Array.from({ length: k }, (_, i) => `pass@${i + 1} (pts)`).join(' | ')} | invalid moves (pts) | swaps word for word |`,
    `|---|---|---:|${'---:|'.repeat(k)}---:|---:|`,
    ...benefits.flatMap((b) => [
      row(b, 'all', b.overall),
      ...perOpponent.flatMap((o) => {
        const m = b.byOpponent[o];
        return m && m.seeds.length > 0 ? [row(b, o, m)] : [];
      }),
    ]),
    '',
  ];
}

/**
 * Per opponent, the benefit in return per attempt (in the game's unit when it has references): with minus
 * without memory, or own minus foreign notes, as the benefits' `versus` says.
 */
export function returnBenefitTable(benefits: readonly MemoryBenefitV1[], refs?: ReferenceValuesV1): string[] {
  const opponents = [...new Set(benefits.flatMap((b) => Object.keys(b.byOpponent)))].sort();
  if (benefits.length === 0 || opponents.length === 0) return [];
  const scale = refs ? 1 / refs.rewardPerReturn : 1;
  const cell = (b: BenefitAggregateV1 | undefined) =>
    b ? b.meanReturn.map((m) => signed(m, scale, refs ? 3 : 2)).join(' → ') : '';
  const k = Math.max(...benefits.map((b) => b.overall.meanReturn.length));
  const unit = refs ? refs.unit : 'reward units';
  return [
    benefits[0]?.versus === 'foreign-notes'
      ? `Own notes minus foreign notes in return per attempt 1 → ${k} (${unit}):`
      : `Memory benefit in return per attempt 1 → ${k} (${unit}), with minus without:`,
    '',
    `| policy | memory | overall | ${opponents.join(' | ')} |`,
    `|---|---|---|${'---|'.repeat(opponents.length)}`,
    ...benefits.map(
      (b) =>
        `| ${b.label} | ${b.memory} − ${b.versus} | ${cell(b.overall)} | ${opponents.map((o) => cell(b.byOpponent[o])).join(' | ')} |`,
    ),
    '',
  ];
}

export function opponentTable(rows: readonly ExperimentRowV1[]): string[] {
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
export function returnTable(rows: readonly ExperimentRowV1[]): string[] {
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
export function referenceTable(rows: readonly ExperimentRowV1[], refs: ReferenceValuesV1): string[] {
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
export function underPrior(r: ExperimentRowV1, refs: ReferenceValuesV1): number[] | undefined {
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
export function ceilingTable(rows: readonly ExperimentRowV1[], refs: ReferenceValuesV1): string[] {
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
