/**
 * The Doors text face: doors are numbered 1..N; an action is `<action>2</action>`; opening a door shows
 * `prize` or `empty`.
 */

import type { ParsedAction, PromptStyle } from '@mage-rl/spec';
import { excerpt, firstActionBlock } from '../text/action-tag';
import type { DoorsAction, DoorsState } from './game';

/** What an opened door shows. */
export const DOORS_RESULT_WORDS = ['prize', 'empty'] as const;

export function doorsRules(doors: number, style: PromptStyle): string {
  if (style === 'compact') {
    return `doors . a prize is behind one of ${doors} doors . open one : <action> door </action>`;
  }
  return [
    `A prize is behind one of ${doors} closed doors, numbered 1 to ${doors}.`,
    'Each attempt you open one door: answer with its number inside action tags, for example <action>2</action>.',
    'The prize stays behind the same door in every attempt. Finding it scores 10.',
  ].join('\n');
}

/** `door 2 empty` (compact) or a sentence. */
export function doorsEvent(door: number, prize: boolean, style: PromptStyle): string {
  if (style === 'compact') return `door ${door} ${prize ? 'prize' : 'empty'}`;
  return prize ? `You opened door ${door}: the prize!` : `You opened door ${door}: empty.`;
}

/** The closed doors, or the door just opened (nothing of earlier attempts). */
export function renderDoors(s: DoorsState, style: PromptStyle): string {
  const won = s.opened !== null && s.opened === s.prize;
  if (style === 'compact') {
    const doors = `doors ${s.doors}`;
    return s.opened === null ? doors : `${doors} . ${doorsEvent(s.opened, won, style)}`;
  }
  const doors = `There are ${s.doors} closed doors, numbered 1 to ${s.doors}.`;
  return s.opened === null ? doors : `${doors} ${doorsEvent(s.opened, won, style)}`;
}

export function formatDoorsAction(door: DoorsAction, style: PromptStyle): string {
  return style === 'compact' ? `<action> ${door} </action>` : `<action>${door}</action>`;
}

const DOOR_RE = /^\s*(?:door\s+)?(\d{1,2})\s*$/i;

/** Parse a door number from the first `<action>` block; a door that does not exist is invalid. Never throws. */
export function parseDoorsAction(text: string, doors: number): ParsedAction<DoorsAction> {
  const block = firstActionBlock(text);
  if (!block.ok) return { valid: false, reason: block.reason };
  const m = DOOR_RE.exec(block.body);
  if (!m) return { valid: false, reason: `'${excerpt(block.body, 20)}' is not a door number` };
  const door = Number(m[1]);
  if (door < 1 || door > doors) return { valid: false, reason: `door ${door} is not in 1..${doors}` };
  return { valid: true, action: door, text: String(door) };
}

const EVENT = /^\s*(?:door|You opened door)\s+(\d+)\b(.*)$/;

/** The opened door and what it showed, from an event line of either style; `null` for others. */
export function parseDoorsEvent(event: string): { readonly door: number; readonly prize: boolean } | null {
  const m = EVENT.exec(event);
  if (!m) return null;
  return { door: Number(m[1]), prize: /prize/.test(m[2] ?? '') };
}
