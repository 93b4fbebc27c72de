import { describe, expect, it } from 'vitest';
import {
  doorsLevels,
  hiddenTargetLevels,
  memorylessPassAtK,
  noRepeatPassAtK,
  treasureFirstProbes,
  treasureLevels,
  treasurePlan,
} from './ceiling';

const close = (actual: readonly number[], expected: readonly number[]) => {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((x, i) => {
    expect(x).toBeCloseTo(expected[i] as number, 12);
  });
};

describe('hidden-target reference levels', () => {
  it('doors N = 3: memoryless 1/3, 5/9, 19/27; no-repeat and Bayes 1/3, 2/3, 1', () => {
    const levels = doorsLevels(3, 3);
    close(levels.memoryless, [1 / 3, 5 / 9, 19 / 27]);
    close(levels.noRepeat, [1 / 3, 2 / 3, 1]);
    close(levels.bayes, [1 / 3, 2 / 3, 1]);
  });

  it('doors N = 4 over 5 attempts: no-repeat reaches 1 at attempt 4 and stays there', () => {
    close(doorsLevels(4, 5).noRepeat, [1 / 4, 1 / 2, 3 / 4, 1, 1]);
    close(memorylessPassAtK(4, 1, 2), [1 / 4, 7 / 16]);
  });

  it('treasure 3×3: Bayes 1/9, 1, 1 (the centre probe names the cell); memoryless 1 − (8/9)^k', () => {
    const levels = treasureLevels(3, 3, 1, 3);
    close(levels.bayes, [1 / 9, 1, 1]);
    close(levels.memoryless, [1 / 9, 1 - (8 / 9) ** 2, 1 - (8 / 9) ** 3]);
    close(levels.noRepeat, [1 / 9, 2 / 9, 3 / 9]);
    expect(treasurePlan(3, 3, 3, 1, 1).probe).toEqual({ row: 1, col: 1 });
  });

  it('treasure 3×3 after a fixed first probe: every one reaches 1 by attempt 3, only the centre at attempt 2', () => {
    const groups = treasureFirstProbes(3, 3, 1, 3);
    expect(groups.map((g) => g.cells)).toEqual([
      [{ row: 1, col: 1 }],
      [
        { row: 0, col: 1 },
        { row: 1, col: 0 },
        { row: 1, col: 2 },
        { row: 2, col: 1 },
      ],
      [
        { row: 0, col: 0 },
        { row: 0, col: 2 },
        { row: 2, col: 0 },
        { row: 2, col: 2 },
      ],
    ]);
    // By hand: an edge's hint leaves 1 cell (2 of 8 targets) or 2 cells (6 of 8); a corner's 2, 2 or 4.
    close(
      groups.map((g) => g.bayes[1] as number),
      [1, 6 / 9, 4 / 9],
    );
    for (const g of groups) close([g.bayes[0] as number, g.bayes[2] as number], [1 / 9, 1]);
    // The best first probe's levels are the plan's.
    close(groups[0]?.bayes ?? [], treasureLevels(3, 3, 1, 3).bayes);
  });

  it('treasure 2×2: every probe leaves a 1×1 part or a 1×2 / 2×1 part; Bayes 1/4, 1, 1', () => {
    // Probe a corner: found 1/4; else the target is one of three cells, each told apart by the hint
    // (same row → west/east alone, same column → north/south alone, the diagonal → both): attempt 2 finds it.
    close(treasureLevels(2, 2, 1, 3).bayes, [1 / 4, 1, 1]);
  });

  it('treasure 4×4 one probe per attempt: Bayes 1/16, 9/16, 1 by hand', () => {
    // Probe row 2 col 2: found 1/16; the rest splits into three 1-cell parts, four 2-cell parts and one
    // 2×2 part. A 1-cell part is found at attempt 2, a 2-cell part at attempt 2 with 1/2 (else 3), the 2×2
    // part at attempt 2 with 1/4 (else its hint leaves one cell: attempt 3).
    // pass@2 = 1/16 + 3/16 + 8/16 · 1/2 + 4/16 · 1/4 = 9/16; pass@3 = 1.
    close(treasureLevels(4, 4, 1, 3).bayes, [1 / 16, 9 / 16, 1]);
  });

  it('more probes per attempt: treasure 3×3 with 2 probes finds the cell in attempt 1', () => {
    close(treasureLevels(3, 3, 2, 2).bayes, [1, 1]);
    close(noRepeatPassAtK(9, 2, 3), [2 / 9, 4 / 9, 6 / 9]);
  });

  it('Bayes is never below no-repeat, which is never below memoryless', () => {
    for (const [w, h] of [
      [2, 3],
      [4, 4],
      [5, 3],
      [9, 9],
    ] as const) {
      const l = treasureLevels(w, h, 1, 4);
      for (let k = 0; k < 4; k++) {
        expect(l.bayes[k]).toBeGreaterThanOrEqual((l.noRepeat[k] as number) - 1e-12);
        expect(l.noRepeat[k]).toBeGreaterThanOrEqual((l.memoryless[k] as number) - 1e-12);
      }
    }
  });
});

describe('hiddenTargetLevels', () => {
  it('reads the resolved options of treasure and doors, and knows no other env', () => {
    const treasure = hiddenTargetLevels({ id: 'treasure', options: { width: 3, height: 3, maxTurns: 1 } }, 2);
    close(treasure?.bayes ?? [], [1 / 9, 1]);
    close(hiddenTargetLevels({ id: 'doors', options: { doors: 3, maxTurns: 1 } }, 3)?.memoryless ?? [], [
      1 / 3,
      5 / 9,
      19 / 27,
    ]);
    expect(hiddenTargetLevels({ id: 'sokoban', options: {} }, 3)).toBeUndefined();
  });
});
