/**
 * Sokoban rooms and states. A room is a `width × height` grid (cell = `row * width + col`) with walls and
 * targets; a state is the player cell plus the sorted box cells. Symbols (the text face, also accepted by
 * `parseSokoban`): `#` wall, `_` floor, `O` target, `X` box, `√` box on target, `P` player, `S` player on
 * target.
 */

import { InvalidArgumentError } from '@mage-rl/spec';

export type SokobanMove = 'up' | 'down' | 'left' | 'right';
export const SOKOBAN_MOVES: readonly SokobanMove[] = ['up', 'down', 'left', 'right'];
/** Direction index of each move in `SokobanRoom.next`. */
export const MOVE_INDEX: Readonly<Record<SokobanMove, number>> = { up: 0, down: 1, left: 2, right: 3 };

export interface SokobanRoom {
  readonly width: number;
  readonly height: number;
  /** 1 for a wall, per cell. Cells outside the grid count as walls. */
  readonly walls: Uint8Array;
  /** 1 for a target, per cell. */
  readonly targets: Uint8Array;
  readonly targetCells: readonly number[];
  /** `next[cell * 4 + dir]`: the neighbouring non-wall cell in direction `dir` (up, down, left, right), or −1. */
  readonly next: Int32Array;
}

export interface SokobanState {
  readonly room: SokobanRoom;
  readonly player: number;
  /** Box cells in ascending order. */
  readonly boxes: readonly number[];
}

export const SOKOBAN_SYMBOLS = {
  wall: '#',
  floor: '_',
  target: 'O',
  box: 'X',
  boxOnTarget: '√',
  player: 'P',
  playerOnTarget: 'S',
} as const;

/** Build a room (and its `next` table) from wall and target masks. */
export function createRoom(
  width: number,
  height: number,
  walls: Uint8Array,
  targets: Uint8Array,
): SokobanRoom {
  const n = width * height;
  if (walls.length !== n || targets.length !== n) {
    throw new InvalidArgumentError(`Room masks must have ${n} cells.`);
  }
  const next = new Int32Array(n * 4).fill(-1);
  const targetCells: number[] = [];
  for (let cell = 0; cell < n; cell++) {
    if (targets[cell]) targetCells.push(cell);
    if (walls[cell]) continue;
    const r = Math.floor(cell / width);
    const c = cell % width;
    const candidates = [
      r > 0 ? cell - width : -1,
      r < height - 1 ? cell + width : -1,
      c > 0 ? cell - 1 : -1,
      c < width - 1 ? cell + 1 : -1,
    ];
    for (let d = 0; d < 4; d++) {
      const to = candidates[d]!;
      if (to >= 0 && !walls[to]) next[cell * 4 + d] = to;
    }
  }
  return { width, height, walls, targets, targetCells, next };
}

/** Parse rows of symbols into a room and state (`' '` is accepted as floor). */
export function parseSokoban(rows: readonly string[]): SokobanState {
  const height = rows.length;
  const cellsOf = rows.map((r) => [...r]);
  const width = Math.max(0, ...cellsOf.map((r) => r.length));
  if (height < 3 || width < 3) throw new InvalidArgumentError('A Sokoban room needs at least 3×3 cells.');
  const n = width * height;
  const walls = new Uint8Array(n).fill(1);
  const targets = new Uint8Array(n);
  const boxes: number[] = [];
  let player = -1;
  cellsOf.forEach((row, r) => {
    row.forEach((ch, c) => {
      const cell = r * width + c;
      if (ch === '#') return;
      if (!'_ OX√PS'.includes(ch))
        throw new InvalidArgumentError(`Unknown Sokoban symbol '${ch}' at row ${r + 1}.`);
      walls[cell] = 0;
      if (ch === 'O' || ch === '√' || ch === 'S') targets[cell] = 1;
      if (ch === 'X' || ch === '√') boxes.push(cell);
      if (ch === 'P' || ch === 'S') {
        if (player >= 0) throw new InvalidArgumentError('A Sokoban room has exactly one player.');
        player = cell;
      }
    });
  });
  if (player < 0) throw new InvalidArgumentError('A Sokoban room needs a player (P or S).');
  const room = createRoom(width, height, walls, targets);
  if (boxes.length === 0 || boxes.length !== room.targetCells.length) {
    throw new InvalidArgumentError(
      `A Sokoban room needs as many boxes as targets and at least one (boxes ${boxes.length}, targets ${room.targetCells.length}).`,
    );
  }
  return { room, player, boxes: boxes.sort((a, b) => a - b) };
}

/** Rows of symbols. `floor` replaces `_` (for instance with a space). */
export function renderSokobanRows(state: SokobanState): string[] {
  const { room, player, boxes } = state;
  const rows: string[] = [];
  for (let r = 0; r < room.height; r++) {
    let row = '';
    for (let c = 0; c < room.width; c++) {
      const cell = r * room.width + c;
      const target = room.targets[cell] === 1;
      if (room.walls[cell]) row += '#';
      else if (cell === player) row += target ? 'S' : 'P';
      else if (boxes.includes(cell)) row += target ? '√' : 'X';
      else row += target ? 'O' : '_';
    }
    rows.push(row);
  }
  return rows;
}

export function boxesOnTargets(state: SokobanState): number {
  let n = 0;
  for (const b of state.boxes) if (state.room.targets[b]) n++;
  return n;
}

export function isSolved(state: SokobanState): boolean {
  for (const b of state.boxes) if (!state.room.targets[b]) return false;
  return true;
}

/** Result of one primitive move, or `null` when the move walks into a wall or an unpushable box. */
export interface MoveResult {
  readonly state: SokobanState;
  /** +1 box pushed onto a target, −1 pushed off one, 0 otherwise. */
  readonly targetDelta: number;
  readonly pushed: boolean;
}

export function tryMove(state: SokobanState, move: SokobanMove): MoveResult | null {
  const { room, player, boxes } = state;
  const d = MOVE_INDEX[move];
  const to = room.next[player * 4 + d]!;
  if (to < 0) return null;
  const i = boxes.indexOf(to);
  if (i < 0) return { state: { room, player: to, boxes }, targetDelta: 0, pushed: false };
  const beyond = room.next[to * 4 + d]!;
  if (beyond < 0 || boxes.includes(beyond)) return null;
  const moved = boxes.slice();
  moved[i] = beyond;
  moved.sort((a, b) => a - b);
  const targetDelta = room.targets[beyond]! - room.targets[to]!;
  return { state: { room, player: to, boxes: moved }, targetDelta, pushed: true };
}

/** `player:box,box` — the key of a state within its room. */
export function sokobanStateKey(state: SokobanState): string {
  return `${state.player}:${state.boxes.join(',')}`;
}
