/**
 * The report of a `mage experiment`: `results.json` (`experiment-results.ts`), `report.md` (the tables of
 * `experiment-tables.ts`) and the success-by-attempt and return charts (SVG + PNG).
 */

import { join } from 'node:path';
import { writeFileAtomic, writeJsonAtomic } from '@mage-rl/core';
import { type Chart, type ChartPoint, chartGrid, renderPng, vegaChart } from '@mage-rl/report';
import type { ExperimentEvalV1 } from '../experiment/experiment';
import { type ExperimentRowV1, experimentResults, type HeadroomOf } from './experiment-results';
import {
  benefitTable,
  ceilingTable,
  notesBenefitTable,
  opponentTable,
  referenceTable,
  returnBenefitTable,
  returnTable,
  suiteTable,
  underPrior,
  warmStartTable,
} from './experiment-tables';
import type { ReferenceValuesV1 } from './reference-values';

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
  headroomOf?: HeadroomOf,
): Promise<ExperimentReportFiles> {
  const results = experimentResults(evals, identifiable, headroomOf);
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
  // One note donor per experiment directory (part of its protocol), recorded in its foreign-notes records.
  const noteDonor = evals.find((e) => e.noteDonor !== undefined)?.noteDonor;
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
      const notes = results.notesBenefit.filter((b) => b.suite === s);
      return [
        `## ${s}`,
        '',
        ...benefitTable(benefits),
        ...warmStartTable(
          (results.versusWarmStart ?? []).filter((c) => c.suite === s),
          benefits,
        ),
        ...notesBenefitTable(notes, noteDonor),
        ...suiteTable(rows),
        '',
        ...opponentTable(rows),
        ...returnTable(rows),
        ...returnBenefitTable(benefits, references),
        ...returnBenefitTable(notes, references),
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
