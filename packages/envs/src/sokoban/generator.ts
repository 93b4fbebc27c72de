/**
 * Reverse-play room generation (as in gym-sokoban): carve a room with a random walk, put the boxes on
 * random targets, then let the player walk randomly and *pull* boxes backwards. Every pull is the reverse
 * of a push, so the result is solvable; the BFS solver then measures its optimal length, and the attempt
 * is repeated (bounded) until that length is inside the requested range.
 */

import { MageError, type Rng } from '@mage-rl/spec';
import { createRoom, type SokobanMove, type SokobanState } from './room';
import { solveSokoban } from './solver';

export interface GenerateRoomOptions {
  /** Grid width including the outer walls. Default 6. */
  readonly width?: number;
  /** Grid height including the outer walls. Default 6. */
  readonly height?: number;
  /** Number of boxes (and targets). Default 2. */
  readonly boxes?: number;
  /** Accepted range of the optimal solution length in moves. Default 5..21. */
  readonly minSolutionLength?: number;
  readonly maxSolutionLength?: number;
  /** Rooms tried before giving up. Default 200. */
  readonly maxRetries?: number;
  /** Reverse-play steps per try. Default 300. */
  readonly reverseSteps?: number;
  /** Solver node budget per try. Default 200 000. */
  readonly maxNodes?: number;
}

export interface GeneratedRoom {
  readonly state: SokobanState;
  /** An optimal solution (fewest moves). */
  readonly solution: SokobanMove[];
  /** Rooms tried, this one included. */
  readonly tries: number;
}

/** Raised when no room with an optimal length in range was found within `maxRetries`. */
export class RoomGenerationError extends MageError {
  constructor(message: string, context: Record<string, unknown>) {
    super('ENV_FAILURE', message, { context });
    this.name = 'RoomGenerationError';
  }
}

// 3×3 carving masks of gym-sokoban (row-major, 1 = floor).
const MASKS: readonly (readonly number[])[] = [
  [0, 0, 0, 1, 1, 1, 0, 0, 0],
  [0, 1, 0, 0, 1, 0, 0, 1, 0],
  [0, 0, 0, 1, 1, 0, 0, 1, 0],
  [0, 0, 0, 1, 1, 0, 1, 1, 0],
  [0, 0, 0, 0, 1, 1, 0, 1, 0],
];
const DR = [-1, 1, 0, 0];
const DC = [0, 0, -1, 1];

/** A wall mask carved by a random walk (outer ring always wall). */
function carveWalls(width: number, height: number, rng: Rng): Uint8Array {
  const walls = new Uint8Array(width * height).fill(1);
  const steps = Math.floor(1.5 * (width + height));
  let r = 1 + rng.int(height - 2);
  let c = 1 + rng.int(width - 2);
  let dir = rng.int(4);
  for (let s = 0; s < steps; s++) {
    if (rng.next() < 0.35) dir = rng.int(4);
    r = Math.min(Math.max(r + DR[dir]!, 1), height - 2);
    c = Math.min(Math.max(c + DC[dir]!, 1), width - 2);
    const mask = MASKS[rng.int(MASKS.length)]!;
    for (let i = 0; i < 9; i++) {
      if (!mask[i]) continue;
      const rr = r + Math.floor(i / 3) - 1;
      const cc = c + (i % 3) - 1;
      if (rr >= 1 && rr <= height - 2 && cc >= 1 && cc <= width - 2) walls[rr * width + cc] = 0;
    }
  }
  return walls;
}

/** One try: carve, place, reverse-play. `null` when the carved room is too small. */
function tryRoom(
  width: number,
  height: number,
  nBoxes: number,
  reverseSteps: number,
  rng: Rng,
): SokobanState | null {
  const walls = carveWalls(width, height, rng);
  const floor: number[] = [];
  for (let i = 0; i < walls.length; i++) if (!walls[i]) floor.push(i);
  if (floor.length < nBoxes + 2) return null;
  rng.shuffle(floor);
  const targets = new Uint8Array(walls.length);
  const boxes = floor.slice(0, nBoxes);
  for (const t of boxes) targets[t] = 1;
  const room = createRoom(width, height, walls, targets);
  let player = floor[nBoxes]!;
  const start = boxes.slice();
  // Reverse play: random steps; a step away from an adjacent box pulls it along with probability 1/2.
  let best: { player: number; boxes: number[]; score: number } | null = null;
  let pulls = 0;
  for (let s = 0; s < reverseSteps; s++) {
    const d = rng.int(4);
    const to = room.next[player * 4 + d]!;
    if (to < 0 || boxes.includes(to)) continue;
    const opposite = d ^ 1; // up<->down, left<->right
    const behind = room.next[player * 4 + opposite]!;
    const pull = rng.next() < 0.5;
    const bi = behind >= 0 ? boxes.indexOf(behind) : -1;
    if (pull && bi >= 0) {
      boxes[bi] = player;
      pulls++;
    }
    player = to;
    let distance = 0;
    for (let i = 0; i < nBoxes; i++) {
      const a = boxes[i]!;
      const t = start[i]!;
      distance +=
        Math.abs(Math.floor(a / width) - Math.floor(t / width)) + Math.abs((a % width) - (t % width));
    }
    const score = pulls * distance;
    if (score > 0 && (best === null || score > best.score)) best = { player, boxes: boxes.slice(), score };
  }
  if (best === null) return null;
  return { room, player: best.player, boxes: best.boxes.sort((a, b) => a - b) };
}

/** Generate a room whose optimal solution length is within range. Deterministic given `rng`. */
export function generateRoom(rng: Rng, options: GenerateRoomOptions = {}): GeneratedRoom {
  const width = options.width ?? 6;
  const height = options.height ?? 6;
  const nBoxes = options.boxes ?? 2;
  const minLen = options.minSolutionLength ?? 5;
  const maxLen = options.maxSolutionLength ?? 21;
  const maxRetries = options.maxRetries ?? 200;
  const reverseSteps = options.reverseSteps ?? 300;
  const maxNodes = options.maxNodes ?? 200_000;
  for (let tries = 1; tries <= maxRetries; tries++) {
    const state = tryRoom(width, height, nBoxes, reverseSteps, rng);
    if (!state) continue;
    const result = solveSokoban(state, { maxDepth: maxLen, maxNodes });
    if (result.status !== 'solved' || !result.solution) continue;
    const len = result.solution.length;
    if (len >= minLen && len <= maxLen) return { state, solution: result.solution, tries };
  }
  throw new RoomGenerationError(
    `No ${width}×${height} Sokoban room with ${nBoxes} box(es) and an optimal solution of ${minLen}..${maxLen} moves after ${maxRetries} tries; widen the range, enlarge the room or raise maxRetries.`,
    { width, height, boxes: nBoxes, minSolutionLength: minLen, maxSolutionLength: maxLen, maxRetries },
  );
}
