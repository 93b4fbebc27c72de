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
  const columns = headers.map((header, i) => {
    const cells = rows.map((r) => formatCell(r[i], digits));
    const numeric = rows.length > 0 && rows.every((r) => typeof r[i] === 'number');
    const width = Math.max(header.length, ...cells.map((c) => c.length));
    const pad = (c: string) => (numeric ? c.padStart(width) : c.padEnd(width));
    return [header, '-'.repeat(width), ...cells].map(pad);
  });
  // Line by line: the header, the rule, then one line per row.
  return Array.from({ length: rows.length + 2 }, (_, line) =>
    columns
      .map((column) => column[line])
      .join('  ')
      .trimEnd(),
  ).join('\n');
}

export function printTable(
  io: Io,
  headers: readonly string[],
  rows: readonly (readonly Cell[])[],
  digits = 4,
): void {
  io.stdout(`${formatTable(headers, rows, digits)}\n`);
}
