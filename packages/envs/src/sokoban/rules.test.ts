import { createRng } from '@mage-rl/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { playSokobanMoves } from './env';
import { sokobanGame } from './game';
import { generateRoom } from './generator';
import {
  isSolved,
  parseSokoban,
  renderSokobanRows,
  type SokobanState,
  sokobanStateKey,
  tryMove,
} from './room';
import { deadSquares, isDeadlocked, solveSokoban } from './solver';

/** An independent, slow reference BFS (string keys, no pruning) for optimal lengths. */
function referenceOptimal(start: SokobanState, limit = 60): number | null {
  let frontier = [start];
  const seen = new Set([sokobanStateKey(start)]);
  for (let depth = 0; depth <= limit; depth++) {
    const nextFrontier: SokobanState[] = [];
    for (const s of frontier) {
      if (isSolved(s)) return depth;
      for (const m of ['up', 'down', 'left', 'right'] as const) {
        const r = tryMove(s, m);
        if (!r || seen.has(sokobanStateKey(r.state))) continue;
        seen.add(sokobanStateKey(r.state));
        nextFrontier.push(r.state);
      }
    }
    frontier = nextFrontier;
  }
  return null;
}

describe('sokoban rules', () => {
  it('walks on floor, pushes a box, is blocked by walls and by box-behind-box', () => {
    const s = parseSokoban(['#######', '#P_XX_#', '#___OO#', '#######']);
    expect(tryMove(s, 'up')).toBeNull(); // wall
    const right = tryMove(s, 'right');
    expect(right).toMatchObject({ pushed: false, targetDelta: 0 });
    expect(tryMove(right?.state as SokobanState, 'right')).toBeNull(); // two boxes in a row
    const down = tryMove(s, 'down')?.state as SokobanState;
    expect(renderSokobanRows(down)).toEqual(['#######', '#__XX_#', '#P__OO#', '#######']);
    // the game model lists exactly the unblocked single moves
    expect(sokobanGame.legalActions(s).map((a) => a.join())).toEqual(['down', 'right']);
    expect(() => sokobanGame.apply(s, ['up'])).toThrow(/blocked/);
  });

  it('renders and parses every symbol, including the player on a target and boxes on targets', () => {
    const rows = ['######', '#S_X_#', '#√___#', '######'];
    const s = parseSokoban(rows);
    expect(renderSokobanRows(s)).toEqual(rows);
    expect(s.room.targetCells).toEqual([7, 13]);
    expect(s.boxes).toEqual([9, 13]);
  });

  it('scores moves: -0.1 each, +1 onto a target, -1 off a target, +10 when solved', () => {
    const corridor = parseSokoban(['#######', '#P_X_O#', '#######']);
    const played = playSokobanMoves(corridor, ['right', 'right', 'right']);
    expect(played).toMatchObject({ ok: true, reward: 10.7 });
    // moves after the solve are not played
    expect(playSokobanMoves(corridor, ['right', 'right', 'right', 'left'])).toMatchObject({ reward: 10.7 });
    const twoBoxes = parseSokoban(['########', '#P√__XO#', '########']);
    expect(playSokobanMoves(twoBoxes, ['right'])).toMatchObject({ ok: true, reward: -1.1 });
    expect(playSokobanMoves(twoBoxes, ['left'])).toEqual({ ok: false, reason: 'move 1 (left) is blocked' });
    expect(playSokobanMoves(twoBoxes, ['right', 'right'])).toMatchObject({ ok: true, reward: -1.2 });
    expect(playSokobanMoves(twoBoxes, ['right', 'right', 'right'])).toMatchObject({ ok: false });
  });

  it('solves hand-made rooms optimally', () => {
    const cases: [string[], number][] = [
      [['#######', '#P_X_O#', '#######'], 3],
      [['######', '#O_X_#', '#P___#', '######'], 6],
      [['######', '#_O__#', '#_X__#', '#_P__#', '######'], 1],
      [['#######', '#O___O#', '#_X_X_#', '#__P__#', '#######'], 11],
    ];
    for (const [rows, length] of cases) {
      const s = parseSokoban(rows);
      const r = solveSokoban(s);
      expect(r.status).toBe('solved');
      expect(r.solution?.length).toBe(length);
      expect(referenceOptimal(s)).toBe(length);
      expect(isSolved(sokobanGame.apply(s, r.solution ?? []))).toBe(true);
    }
  });

  it('finds dead squares (corners, wall runs without targets) and deadlocks', () => {
    const s = parseSokoban(['######', '#O___#', '#__X_#', '#___P#', '######']);
    const dead = deadSquares(s.room);
    const deadCells = [...dead.keys()].filter((c) => dead[c]);
    // the top-right corner, the right column and the bottom row: a box there never reaches O.
    expect(deadCells.map((c) => [Math.floor(c / 6), c % 6])).toEqual([
      [1, 4],
      [2, 4],
      [3, 1],
      [3, 2],
      [3, 3],
      [3, 4],
    ]);
    expect(isDeadlocked(s)).toBe(false);
    // pushing the box right puts it against the right wall: dead square
    const pushedRight = parseSokoban(['######', '#O___#', '#___X#', '#__P_#', '######']);
    expect(isDeadlocked(pushedRight)).toBe(true);
    // no dead square, but one target can never take a box: the bounded solver proves the deadlock
    const jammed = parseSokoban(['########', '#P_√XO_#', '########']);
    expect(isDeadlocked(jammed)).toBe(true);
    const afterPush = tryMove(parseSokoban(['########', '#P√__XO#', '########']), 'right')
      ?.state as SokobanState;
    expect(deadSquares(afterPush.room)[3]).toBe(0);
    expect(isDeadlocked(afterPush)).toBe(true);
    expect(solveSokoban(afterPush).status).toBe('unsolvable');
    // a solution longer than the search depth counts as a deadlock; a node budget does not
    const far = parseSokoban(['######', '#O_X_#', '#P___#', '######']);
    expect(isDeadlocked(far, { maxDepth: 5 })).toBe(true);
    expect(isDeadlocked(far, { maxDepth: 6 })).toBe(false);
    expect(solveSokoban(far, { maxNodes: 3 }).status).toBe('node-limit');
    expect(isDeadlocked(far, { maxNodes: 3 })).toBe(false);
  });

  it('the solver agrees with a reference BFS on generated rooms (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 1, max: 3 }), (seed, boxes) => {
        const g = generateRoom(createRng(`prop/${seed}`), { boxes });
        expect(referenceOptimal(g.state, 25)).toBe(g.solution.length);
      }),
      { numRuns: 25 },
    );
  });
});
