/**
 * The Treasure text face. A cell is `row col`, 1-based, row 1 the northmost and column 1 the westmost;
 * actions are `<action>2 3</action>` (a comma between the numbers is accepted too). A probe's answer is
 * `found`, or where the treasure lies from it: a row word (`north` / `south`, none on the probe's row) and
 * a column word (`west` / `east`, none on its column), e.g. `north east`, `south`, `west`.
 */

import type { ParsedAction, PromptStyle } from '@mage-rl/spec';
import { excerpt, firstActionBlock } from '../text/action-tag';
import {
  type AxisHint,
  type TreasureAction,
  type TreasureHint,
  type TreasureState,
  treasureHint,
} from './game';

/** Every answer word of a probe. */
export const TREASURE_HINT_WORDS = ['found', 'north', 'south', 'west', 'east'] as const;

/** `2 3`: the 1-based row and column of a cell. */
export function treasureCellText(cell: number, width: number): string {
  return `${Math.floor(cell / width) + 1} ${(cell % width) + 1}`;
}

/** `found`, or the direction words (`north east`, `south`, `west`). */
export function treasureHintText(hint: TreasureHint): string {
  if (hint.found) return 'found';
  const words: string[] = [];
  if (hint.row !== 0) words.push(hint.row < 0 ? 'north' : 'south');
  if (hint.col !== 0) words.push(hint.col < 0 ? 'west' : 'east');
  return words.join(' ');
}

export function treasureRules(width: number, height: number, maxTurns: number, style: PromptStyle): string {
  if (style === 'compact') {
    return `treasure . find the hidden cell of a ${height} by ${width} grid . row 1 is north . col 1 is west . probes ${maxTurns} . answer <action> row col </action>`;
  }
  const probes = maxTurns === 1 ? 'one probe' : `${maxTurns} probes`;
  return [
    `A treasure is hidden in one cell of a grid of ${height} rows and ${width} columns. Row 1 is the northmost row, column 1 the westmost column.`,
    `Each attempt you have ${probes}: name a cell as row and column inside action tags, for example <action>2 3</action>.`,
    'If the treasure is there you find it; otherwise you are told where it lies from the cell you probed: north or south (nothing if it is in the same row) and west or east (nothing if it is in the same column), e.g. "north east" or "west".',
    'The treasure stays in the same cell in every attempt. Finding it scores 10.',
  ].join('\n');
}

/** The event line of a probe: `probe 2 3 south west` (compact) or a sentence. */
export function treasureEvent(cell: number, width: number, hint: TreasureHint, style: PromptStyle): string {
  const at = treasureCellText(cell, width);
  if (style === 'compact') return `probe ${at} ${treasureHintText(hint)}`;
  const [row, col] = at.split(' ');
  return hint.found
    ? `You probed row ${row}, column ${col}: found the treasure!`
    : `You probed row ${row}, column ${col}: the treasure is ${treasureHintText(hint)} of it.`;
}

/** The grid size, and the last probe of the attempt with its answer (nothing of earlier attempts). */
export function renderTreasure(s: TreasureState, style: PromptStyle): string {
  const last = s.probes[s.probes.length - 1];
  const hint = last === undefined ? undefined : treasureHint(s.width, s.target, last);
  if (style === 'compact') {
    const grid = `grid ${s.height} by ${s.width}`;
    return last === undefined || !hint ? grid : `${grid} . last ${treasureEvent(last, s.width, hint, style)}`;
  }
  const grid = `The grid has ${s.height} rows and ${s.width} columns.`;
  if (last === undefined || !hint) return `${grid} Nothing probed yet in this attempt.`;
  return `${grid} Last probe: ${treasureEvent(last, s.width, hint, style)}`;
}

export function formatTreasureAction(cell: TreasureAction, width: number, style: PromptStyle): string {
  const at = treasureCellText(cell, width);
  return style === 'compact' ? `<action> ${at} </action>` : `<action>${at}</action>`;
}

const CELL_RE = /^\s*\(?\s*(\d{1,2})\s*[,\s]\s*(\d{1,2})\s*\)?\s*$/;

/** Parse `row col` from the first `<action>` block; a cell off the grid is invalid. Never throws. */
export function parseTreasureAction(
  text: string,
  width: number,
  height: number,
): ParsedAction<TreasureAction> {
  const block = firstActionBlock(text);
  if (!block.ok) return { valid: false, reason: block.reason };
  const m = CELL_RE.exec(block.body);
  if (!m) return { valid: false, reason: `'${excerpt(block.body, 20)}' is not a cell 'row col'` };
  const row = Number(m[1]);
  const col = Number(m[2]);
  if (row < 1 || row > height || col < 1 || col > width) {
    return { valid: false, reason: `row ${row} col ${col} is off the ${height} by ${width} grid` };
  }
  const cell = (row - 1) * width + (col - 1);
  return { valid: true, action: cell, text: treasureCellText(cell, width) };
}

/** A probe read back from an event line of either style (1-based row and column). */
export interface TreasureProbeFacts {
  readonly row: number;
  readonly col: number;
  readonly hint: TreasureHint;
}

const COMPACT_EVENT = /^\s*(?:last\s+)?probe\s+(\d+)\s+(\d+)\s+(.*)$/;
const VERBOSE_EVENT = /^\s*You probed row (\d+), column (\d+): (.*)$/;

/** The probe and answer of an event line (`probe 2 3 south west`, or its sentence); `null` for others. */
export function parseTreasureEvent(event: string): TreasureProbeFacts | null {
  const m = COMPACT_EVENT.exec(event) ?? VERBOSE_EVENT.exec(event);
  if (!m) return null;
  const rest = (m[3] ?? '').toLowerCase();
  const axis = (before: string, after: string): AxisHint =>
    rest.includes(before) ? -1 : rest.includes(after) ? 1 : 0;
  const found = /\bfound\b/.test(rest);
  const hint: TreasureHint = found
    ? { found: true, row: 0, col: 0 }
    : { found: false, row: axis('north', 'south'), col: axis('west', 'east') };
  return { row: Number(m[1]), col: Number(m[2]), hint };
}
