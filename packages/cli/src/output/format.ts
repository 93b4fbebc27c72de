/** Output helpers shared by commands: JSON for `--json`, aligned tables otherwise. */

import type { Io } from '../program/error-boundary';

export function printJson(io: Io, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

export type Cell = string | number | boolean | null | undefined;

/** Formats numbers with up to `digits` decimals (integers stay integers). */
export function formatCell(value: Cell, digits = 4): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') {
    if (Number.isInteger(value)) return String(value);
    return Number.isFinite(value) ? value.toFixed(digits) : String(value);
  }
  return String(value);
}

/** An aligned text table: numbers right-aligned, text left-aligned. */
export function formatTable(
  headers: readonly string[],
  rows: readonly (readonly Cell[])[],
  digits = 4,
): string {
  const text = rows.map((r) => headers.map((_, i) => formatCell(r[i], digits)));
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number'));
  const widths = headers.map((h, i) => Math.max(h.length, ...text.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...text.map(line)].join('\n');
}

export function printTable(
  io: Io,
  headers: readonly string[],
  rows: readonly (readonly Cell[])[],
  digits = 4,
): void {
  io.stdout(`${formatTable(headers, rows, digits)}\n`);
}
