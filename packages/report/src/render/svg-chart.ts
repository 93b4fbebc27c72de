/**
 * Report charts: each chart is its Vega-Lite spec (`chartSpec`, the same spec the dashboard page shows),
 * rendered to SVG in Node; `chartGrid` lays several out as one SVG and `renderPng` turns that into a PNG.
 */

import { type ChartDef, chartSpec } from '../charts/chart-spec';
import { renderSvg } from './render-svg';

export interface Chart {
  readonly svg: string;
  readonly width: number;
  readonly height: number;
}

const FONT = 'font-family="DejaVu Sans, sans-serif"';

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A chart rendered from its Vega-Lite spec (`size`: the plot area, without axes and legend). */
export async function vegaChart(
  def: ChartDef,
  size: { width?: number; height?: number } = {},
): Promise<Chart> {
  const svg = await renderSvg(chartSpec(def, size));
  const width = Number(/<svg[^>]*\swidth="([\d.]+)"/.exec(svg)?.[1] ?? 0);
  const height = Number(/<svg[^>]*\sheight="([\d.]+)"/.exec(svg)?.[1] ?? 0);
  return { svg, width, height };
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
    // Each chart centred in its cell, nested as an <svg> element.
    const x = (i % cols) * cellW + (cellW - c.width) / 2;
    const y = top + Math.floor(i / cols) * cellH;
    parts.push(c.svg.replace('<svg ', `<svg x="${x}" y="${y}" `));
  });
  parts.push('</svg>');
  return { svg: parts.join('\n'), width, height };
}
