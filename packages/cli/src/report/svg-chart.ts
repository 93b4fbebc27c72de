/**
 * Dependency-free SVG line charts for run reports: per-attempt success curves with confidence intervals
 * and training curves. Output is plain SVG text; `renderPng` turns it into a PNG.
 */

export interface SeriesPoint {
  readonly x: number;
  readonly y: number;
  /** Lower and upper bound of a confidence interval, drawn as a whisker. */
  readonly lo?: number;
  readonly hi?: number;
}

export interface Series {
  readonly name: string;
  readonly points: readonly SeriesPoint[];
  readonly dashed?: boolean;
}

export interface LineChartOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly Series[];
  readonly width?: number;
  readonly height?: number;
  /** Fixed y range; default: the data's range, padded. */
  readonly yMin?: number;
  readonly yMax?: number;
  /** Show y as percentages (data in [0, 1]). */
  readonly percent?: boolean;
  /** Only integer x ticks (attempt numbers, iterations). */
  readonly integerX?: boolean;
  /** Text shown in the middle when there is no data. */
  readonly emptyText?: string;
}

export interface Chart {
  readonly svg: string;
  readonly width: number;
  readonly height: number;
}

/** Okabe–Ito palette: distinguishable with colour-vision deficiencies. */
export const PALETTE = [
  '#0072B2',
  '#D55E00',
  '#009E73',
  '#CC79A7',
  '#E69F00',
  '#56B4E9',
  '#F0E442',
  '#000000',
];

const FONT = 'font-family="DejaVu Sans, sans-serif"';

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** About `count` round tick values covering [min, max]. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(Number.isFinite(min) && Number.isFinite(max))) return [];
  if (min === max) return [min];
  const span = max - min;
  const raw = span / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  const ticks: number[] = [];
  for (let v = Math.ceil(min / step - 1e-9) * step; v <= max + step * 1e-9; v += step) {
    ticks.push(Number(v.toPrecision(12)));
  }
  return ticks;
}

function formatTick(v: number, percent: boolean): string {
  if (percent) return `${Number((v * 100).toPrecision(6))}%`;
  if (Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0)) return v.toExponential(1);
  return String(Number(v.toPrecision(6)));
}

/** Where a chart draws: the plot area inside the margins, above a legend of up to three columns. */
interface ChartFrame {
  readonly width: number;
  readonly height: number;
  readonly margin: {
    readonly top: number;
    readonly right: number;
    readonly bottom: number;
    readonly left: number;
  };
  readonly plotW: number;
  readonly plotH: number;
  readonly legendColumns: number;
}

function chartFrame(options: LineChartOptions): ChartFrame {
  const width = options.width ?? 640;
  const height = options.height ?? 400;
  const margin = { top: 48, right: 20, bottom: 56, left: 68 };
  const plotW = width - margin.left - margin.right;
  // Up to three legend entries per row, fewer when the names are long (about 6.2 px per character).
  const longest = Math.max(0, ...options.series.map((s) => s.name.length));
  const legendColumns = Math.max(1, Math.min(3, Math.floor(plotW / (36 + 6.2 * longest))));
  const legendRows = Math.ceil(options.series.length / legendColumns);
  const legendHeight = legendRows * 18 + (legendRows > 0 ? 8 : 0);
  const plotH = height - margin.top - margin.bottom - legendHeight;
  return { width, height, margin, plotW, plotH, legendColumns };
}

/** The data ranges the plot shows, and the maps from data to pixel coordinates. */
interface ChartScales {
  readonly xMin: number;
  readonly xMax: number;
  readonly yMin: number;
  readonly yMax: number;
  readonly sx: (x: number) => number;
  readonly sy: (y: number) => number;
}

const isDrawn = (p: SeriesPoint) => Number.isFinite(p.x) && Number.isFinite(p.y);

/**
 * x over the points (padded by 4% on both sides, to keep points off the frame); y over the points and
 * their intervals, padded by 5% where not fixed by the options. A single value gets a range of ±1.
 */
function chartScales(
  options: LineChartOptions,
  frame: ChartFrame,
  points: readonly SeriesPoint[],
): ChartScales {
  const { margin, plotW, plotH } = frame;
  const xs = points.map((p) => p.x);
  const ys = points.flatMap((p) => [p.y, p.lo ?? p.y, p.hi ?? p.y]).filter(Number.isFinite);
  let xMin = xs.length ? Math.min(...xs) : 0;
  let xMax = xs.length ? Math.max(...xs) : 1;
  if (xMin === xMax) {
    xMin -= 1;
    xMax += 1;
  }
  let yMin = options.yMin ?? (ys.length ? Math.min(...ys) : 0);
  let yMax = options.yMax ?? (ys.length ? Math.max(...ys) : 1);
  if (yMin === yMax) {
    yMin -= 1;
    yMax += 1;
  } else if (options.yMin === undefined || options.yMax === undefined) {
    const pad = (yMax - yMin) * 0.05;
    if (options.yMin === undefined) yMin -= pad;
    if (options.yMax === undefined) yMax += pad;
  }
  const xPad = (xMax - xMin) * 0.04;
  const sx = (x: number) => margin.left + ((x - xMin + xPad) / (xMax - xMin + 2 * xPad)) * plotW;
  const sy = (y: number) => margin.top + plotH - ((y - yMin) / (yMax - yMin)) * plotH;
  return { xMin, xMax, yMin, yMax, sx, sy };
}

/** Grid lines and tick labels, the frame and the axis labels. */
function axesParts(options: LineChartOptions, frame: ChartFrame, scales: ChartScales): string[] {
  const { margin, plotW, plotH } = frame;
  const { xMin, xMax, yMin, yMax, sx, sy } = scales;
  const parts: string[] = [];
  const yTicks = niceTicks(yMin, yMax, 5).filter((t) => t >= yMin - 1e-12 && t <= yMax + 1e-12);
  let xTicks = niceTicks(xMin, xMax, 6);
  if (options.integerX) xTicks = [...new Set(xTicks.map(Math.round))].filter((t) => t >= xMin && t <= xMax);
  for (const t of yTicks) {
    const y = sy(t).toFixed(1);
    parts.push(
      `<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${y}" y2="${y}" stroke="#e5e5e5"/>`,
      `<text x="${margin.left - 8}" y="${y}" dy="4" text-anchor="end" font-size="11" fill="#333" ${FONT}>${formatTick(t, options.percent ?? false)}</text>`,
    );
  }
  for (const t of xTicks) {
    const x = sx(t).toFixed(1);
    parts.push(
      `<line x1="${x}" x2="${x}" y1="${margin.top + plotH}" y2="${margin.top + plotH + 5}" stroke="#333"/>`,
      `<text x="${x}" y="${margin.top + plotH + 18}" text-anchor="middle" font-size="11" fill="#333" ${FONT}>${formatTick(t, false)}</text>`,
    );
  }
  parts.push(
    `<rect x="${margin.left}" y="${margin.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333"/>`,
    `<text x="${margin.left + plotW / 2}" y="${margin.top + plotH + 38}" text-anchor="middle" font-size="12" ${FONT}>${escapeXml(options.xLabel)}</text>`,
    `<text transform="translate(16 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle" font-size="12" ${FONT}>${escapeXml(options.yLabel)}</text>`,
  );
  return parts;
}

/** The colour of series `i`. */
const colorOf = (i: number): string => PALETTE[i % PALETTE.length] ?? '#000000';

/**
 * Series `i` of `count`: interval whiskers, the line (from two points on) and, for up to 40 points, dots.
 * Series are dodged sideways a little so whiskers at equal x do not hide each other.
 */
function seriesParts(s: Series, i: number, count: number, scales: ChartScales): string[] {
  const { sx, sy } = scales;
  const color = colorOf(i);
  const dodge = (i - (count - 1) / 2) * 5;
  const px = (x: number) => sx(x) + dodge;
  const pts = s.points.filter(isDrawn).toSorted((a, b) => a.x - b.x);
  const parts: string[] = [];
  for (const p of pts) {
    if (p.lo !== undefined && p.hi !== undefined && Number.isFinite(p.lo) && Number.isFinite(p.hi)) {
      const x = px(p.x);
      parts.push(
        `<path d="M${x.toFixed(1)} ${sy(p.lo).toFixed(1)}V${sy(p.hi).toFixed(1)}M${(x - 4).toFixed(1)} ${sy(p.lo).toFixed(1)}h8M${(x - 4).toFixed(1)} ${sy(p.hi).toFixed(1)}h8" stroke="${color}" stroke-opacity="0.6" fill="none"/>`,
      );
    }
  }
  if (pts.length > 1) {
    const d = pts.map((p, k) => `${k === 0 ? 'M' : 'L'}${px(p.x).toFixed(1)} ${sy(p.y).toFixed(1)}`).join('');
    parts.push(
      `<path d="${d}" stroke="${color}" stroke-width="2" fill="none"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
    );
  }
  if (pts.length <= 40) {
    for (const p of pts) {
      parts.push(`<circle cx="${px(p.x).toFixed(1)}" cy="${sy(p.y).toFixed(1)}" r="3.5" fill="${color}"/>`);
    }
  }
  return parts;
}

/** The legend below the plot: a line sample and the name of every series, row by row. */
function legendParts(series: readonly Series[], frame: ChartFrame): string[] {
  const { margin, plotW, plotH, legendColumns } = frame;
  const legendTop = margin.top + plotH + 50;
  return series.flatMap((s, i) => {
    const x = margin.left + (i % legendColumns) * (plotW / legendColumns);
    const y = legendTop + Math.floor(i / legendColumns) * 18;
    return [
      `<line x1="${x}" x2="${x + 22}" y1="${y}" y2="${y}" stroke="${colorOf(i)}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
      `<text x="${x + 28}" y="${y}" dy="4" font-size="11" ${FONT}>${escapeXml(s.name)}</text>`,
    ];
  });
}

/** A line chart: title, axes, every series (with interval whiskers) and a legend. */
export function lineChart(options: LineChartOptions): Chart {
  const frame = chartFrame(options);
  const { width, height, margin, plotW, plotH } = frame;
  const points = options.series.flatMap((s) => s.points).filter(isDrawn);
  const scales = chartScales(options, frame, points);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="26" text-anchor="middle" font-size="16" font-weight="bold" ${FONT}>${escapeXml(options.title)}</text>`,
    ...axesParts(options, frame, scales),
  ];
  if (points.length === 0) {
    parts.push(
      `<text x="${margin.left + plotW / 2}" y="${margin.top + plotH / 2}" text-anchor="middle" font-size="13" fill="#777" ${FONT}>${escapeXml(options.emptyText ?? 'no data')}</text>`,
    );
  }
  options.series.forEach((s, i) => {
    parts.push(...seriesParts(s, i, options.series.length, scales));
  });
  parts.push(...legendParts(options.series, frame), '</svg>');
  return { svg: parts.join('\n'), width, height };
}

/** Lays charts out in a grid with `columns` columns, as one SVG. */
export function chartGrid(charts: readonly Chart[], columns = 2, title?: string): Chart {
  const cellW = Math.max(...charts.map((c) => c.width), 1);
  const cellH = Math.max(...charts.map((c) => c.height), 1);
  const cols = Math.max(1, Math.min(columns, charts.length));
  const rows = Math.ceil(charts.length / cols);
  const top = title ? 40 : 0;
  const width = cols * cellW;
  const height = rows * cellH + top;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
  ];
  if (title) {
    parts.push(
      `<text x="${width / 2}" y="28" text-anchor="middle" font-size="20" font-weight="bold" ${FONT}>${escapeXml(title)}</text>`,
    );
  }
  charts.forEach((c, i) => {
    const x = (i % cols) * cellW;
    const y = top + Math.floor(i / cols) * cellH;
    // Nest each chart as an <svg> element positioned in the grid.
    parts.push(c.svg.replace('<svg ', `<svg x="${x}" y="${y}" `));
  });
  parts.push('</svg>');
  return { svg: parts.join('\n'), width, height };
}
