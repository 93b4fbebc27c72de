/**
 * A chart, defined once: its long-format points and titles (`ChartDef`), and `chartSpec`, which turns it
 * into a Vega-Lite spec. The dashboard page embeds the specs in the browser; the trainer's reports render
 * the same specs to SVG in Node (`renderSvg`). See architecture/report.md.
 */

import type { TopLevelSpec } from 'vega-lite';

/** One point of a series; `lo`/`hi` is a confidence interval drawn as a whisker. */
export interface ChartPoint {
  /** Legend entry: the run (when several are overlaid) and the series. */
  readonly label: string;
  readonly x: number;
  readonly y: number;
  readonly lo?: number;
  readonly hi?: number;
  /** Drawn dashed (a secondary series: before training, reflections, pass@K). */
  readonly dashed?: boolean;
}

export interface ChartDef {
  readonly id: string;
  readonly title: string;
  readonly xTitle: string;
  readonly yTitle: string;
  /** y is a rate in [0, 1], shown as a percentage on a fixed 0–100% axis. */
  readonly percent?: boolean;
  readonly points: readonly ChartPoint[];
  /** Shown when there are no points. */
  readonly empty: string;
}

/**
 * Okabe–Ito palette (distinguishable with colour-vision deficiencies), then four of Tol's muted colours for
 * charts with more than eight series (experiments crossing methods, switch values and memories).
 */
export const PALETTE = [
  '#0072B2',
  '#D55E00',
  '#009E73',
  '#CC79A7',
  '#E69F00',
  '#56B4E9',
  '#F0E442',
  '#000000',
  '#882255',
  '#44AA99',
  '#999933',
  '#888888',
];

/** Legend labels up to this many characters sit in two columns; longer ones get a column each. */
const TWO_COLUMN_LABEL = 40;

/**
 * The legend: whole labels (an experiment's switch values are at their end; DejaVu Sans at 10 px is about
 * 8.5 px a character), in one or two columns.
 */
function legendOf(points: readonly ChartPoint[]) {
  const longest = points.reduce((m, p) => Math.max(m, p.label.length), 0);
  return {
    orient: 'bottom' as const,
    columns: longest > TWO_COLUMN_LABEL ? 1 : 2,
    labelLimit: Math.max(260, 9 * longest),
    symbolOpacity: 1,
  };
}

/** The name of the dataset every spec reads; the page replaces its values on live updates. */
export const CHART_DATA = 'points';

/** The Vega-Lite spec of a chart (its points inline as the named dataset `points`). */
export function chartSpec(chart: ChartDef, size: { width?: number; height?: number } = {}): TopLevelSpec {
  const y = {
    field: 'y',
    type: 'quantitative' as const,
    title: chart.yTitle,
    ...(chart.percent
      ? { scale: { domain: [0, 1] }, axis: { format: '.0%' } }
      : { scale: { zero: false }, axis: { format: '.4~g' } }),
  };
  // The x axis spans the data (attempts start at 1, iterations at 0), in whole steps labelled as integers
  // (a lone point's padded domain would otherwise be labelled `300.000000`).
  const x = {
    field: 'x',
    type: 'quantitative' as const,
    title: chart.xTitle,
    scale: { zero: false },
    axis: { tickMinStep: 1, format: 'd' },
  };
  const color = {
    field: 'label',
    type: 'nominal' as const,
    title: null,
    scale: { range: PALETTE },
    // Full-colour symbols: the interval layer's opacity would otherwise fade them.
    legend: legendOf(chart.points),
  };
  const many = chart.points.length > 80;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: chart.points.length === 0 ? { text: chart.title, subtitle: chart.empty } : chart.title,
    width: size.width ?? 420,
    height: size.height ?? 220,
    data: { name: CHART_DATA },
    datasets: { [CHART_DATA]: chart.points.map((p) => ({ ...p })) },
    config: { font: 'DejaVu Sans, sans-serif', view: { stroke: '#888' } },
    layer: [
      {
        transform: [{ filter: 'isValid(datum.lo) && isValid(datum.hi)' }],
        mark: { type: 'rule', opacity: 0.55 },
        encoding: { x, y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' }, color },
      },
      {
        mark: { type: 'line', strokeWidth: 2, point: !many, interpolate: 'linear' },
        encoding: {
          x,
          y,
          color,
          strokeDash: {
            field: 'dashed',
            type: 'nominal',
            legend: null,
            scale: {
              domain: [false, true],
              range: [
                [1, 0],
                [6, 4],
              ],
            },
          },
          tooltip: [
            { field: 'label', type: 'nominal' },
            { field: 'x', type: 'quantitative', title: chart.xTitle },
            { field: 'y', type: 'quantitative', title: chart.yTitle, format: chart.percent ? '.1%' : '.4~g' },
          ],
        },
      },
    ],
  };
}
