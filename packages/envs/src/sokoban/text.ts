/** The Sokoban text face: room rendering and the `up, left, …` move-list parser. */

import type { ParsedAction, PromptStyle } from '@mage-rl/spec';
import { excerpt, firstActionBlock } from '../text/action-tag';
import type { SokobanAction } from './game';
import { renderSokobanRows, SOKOBAN_MOVES, type SokobanMove, type SokobanState } from './room';

export function renderSokoban(state: SokobanState, style: PromptStyle): string {
  const rows = renderSokobanRows(state);
  if (style === 'compact') return `room\n${rows.map((r) => [...r].join(' ')).join('\n')}`;
  let onTarget = 0;
  for (const b of state.boxes) if (state.room.targets[b]) onTarget++;
  return `${rows.join('\n')}\nBoxes on targets: ${onTarget} of ${state.boxes.length}.`;
}

export function sokobanRules(style: PromptStyle, maxTurns: number, movesPerTurn: number): string {
  if (style === 'compact') {
    return `sokoban . push every X onto O . # wall _ floor O target X box √ box on target P you S you on target . up to ${movesPerTurn} moves : <action> up , left </action>`;
  }
  return [
    'You are playing Sokoban. Push every box onto a target.',
    'Symbols: # wall, _ floor, O target, X box, √ box on a target, P you, S you standing on a target. Row 1 is the top.',
    'You move up, down, left or right. Walking into a box pushes it one cell if the cell behind it is free; you cannot pull boxes, and you cannot push two boxes at once or push a box into a wall.',
    `Each turn, answer with 1 to ${movesPerTurn} moves separated by commas inside action tags, for example <action>up, left</action>. A turn with a blocked move is invalid and wastes the turn.`,
    `Rewards: -0.1 per move, +1 for a box pushed onto a target, -1 for a box pushed off a target, +10 when solved. The attempt ends when solved, when the room can no longer be solved, or after ${maxTurns} turns.`,
  ].join('\n');
}

export function formatSokobanAction(moves: SokobanAction, style: PromptStyle): string {
  return style === 'compact'
    ? `<action> ${moves.join(' , ')} </action>`
    : `<action>${moves.join(', ')}</action>`;
}

const WORD_RE = /^\s*([a-z]+)\s*$/i;

/**
 * Parse 1..`movesPerTurn` comma-separated moves (any letter case) from the first `<action>` block. Never
 * throws. Only the text is checked: whether each move is possible in the room is the env's rule, checked
 * when the turn is played, so a blocked move counts as a rule violation, not as unreadable text.
 */
export function parseSokobanAction(text: string, movesPerTurn = 3): ParsedAction<SokobanAction> {
  const block = firstActionBlock(text);
  if (!block.ok) return { valid: false, reason: block.reason };
  const parts = block.body.split(',');
  if (parts.length > movesPerTurn) {
    return { valid: false, reason: `at most ${movesPerTurn} moves per turn, got ${parts.length}` };
  }
  const moves: SokobanMove[] = [];
  for (const part of parts) {
    const m = WORD_RE.exec(part);
    const word = m ? m[1]!.toLowerCase() : '';
    if (!(SOKOBAN_MOVES as readonly string[]).includes(word)) {
      return { valid: false, reason: `'${excerpt(part, 20)}' is not one of up, down, left, right` };
    }
    moves.push(word as SokobanMove);
  }
  return { valid: true, action: moves, text: moves.join(', ') };
}
