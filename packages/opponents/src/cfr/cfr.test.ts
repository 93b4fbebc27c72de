import { nimGame } from '@mage-rl/core/testing';
import { KUHN_INITIAL_STATE, kuhnGame } from '@mage-rl/envs/kuhn-poker';
import { describe, expect, it } from 'vitest';
import { expectedReturns, exploitability } from '../best-response/best-response';
import { buildGameTree } from '../game-tree/game-tree';
import { createCfrSolver } from './cfr';
import { solveGame } from './solve';

const KUHN_VALUE = -1 / 18;

describe('game tree', () => {
  it('unrolls Kuhn Poker: 1 chance node, 6 deals, 12 information sets', () => {
    const tree = buildGameTree({ game: kuhnGame, root: KUHN_INITIAL_STATE });
    // 1 root + 6 deals × (1 + 2 + 2 + 2 + 2 terminals/decisions of the 9-node betting tree)
    expect(tree.numNodes).toBe(1 + 6 * 9);
    expect(tree.numInfoSets).toBe(12);
    expect(tree.numSlots).toBe(24);
    expect([...tree.infoKey].sort()).toEqual(
      ['J:', 'Q:', 'K:', 'J:p', 'Q:p', 'K:p', 'J:b', 'Q:b', 'K:b', 'J:pb', 'Q:pb', 'K:pb'].sort(),
    );
    // Pre-order: every parent comes before its children.
    for (let i = 0; i < tree.numNodes; i++) {
      for (let e = tree.childStart[i]!; e < tree.childStart[i]! + tree.childCount[i]!; e++) {
        expect(tree.edgeChild[e]!).toBeGreaterThan(i);
      }
    }
  });

  it('rejects non-zero-sum games', () => {
    const game = { ...nimGame, returns: () => [1, 1] };
    expect(() => buildGameTree({ game, root: { stones: 2, toMove: 0, winner: null } })).toThrow(/zero-sum/);
  });
});

describe('CFR and CFR+ on Kuhn Poker', () => {
  it('CFR+ converges to the game value -1/18 with exploitability shrinking', () => {
    const solver = createCfrSolver({ game: kuhnGame, root: KUHN_INITIAL_STATE, algorithm: 'cfr+' });
    const expl: number[] = [];
    for (const n of [10, 90, 900]) {
      solver.run(n);
      expl.push(
        exploitability({ game: kuhnGame, root: KUHN_INITIAL_STATE, strategy: solver.averageStrategy() }),
      );
    }
    expect(solver.iterations).toBe(1000);
    expect(expl[1]!).toBeLessThan(expl[0]!);
    expect(expl[2]!).toBeLessThan(expl[1]!);
    expect(expl[2]!).toBeLessThan(2e-3);
    const [v0, v1] = expectedReturns({
      game: kuhnGame,
      root: KUHN_INITIAL_STATE,
      strategy: solver.averageStrategy(),
    });
    expect(v0).toBeCloseTo(KUHN_VALUE, 3);
    expect(v1).toBeCloseTo(-KUHN_VALUE, 3);
  });

  it('vanilla CFR reaches the same value and a low exploitability', () => {
    const r = solveGame({ game: kuhnGame, root: KUHN_INITIAL_STATE, algorithm: 'cfr', iterations: 2000 });
    expect(r.value).toBeCloseTo(KUHN_VALUE, 2);
    expect(r.exploitability).toBeLessThan(0.01);
    expect(r.exploitability).toBeCloseTo(r.nashConv / 2, 12);
  });

  it('finds the known equilibrium structure', () => {
    const { strategy } = solveGame({ game: kuhnGame, root: KUHN_INITIAL_STATE, iterations: 3000 });
    // Player 1 always calls with K and always folds J facing a bet; bets K after a check.
    expect(strategy['K:b']!.BET).toBeCloseTo(1, 2);
    expect(strategy['J:b']!.PASS).toBeCloseTo(1, 2);
    expect(strategy['K:p']!.BET).toBeCloseTo(1, 2);
    // Player 0 with a Queen never bets first; player 1 calls a bet with Q one third of the time.
    expect(strategy['Q:']!.PASS).toBeCloseTo(1, 2);
    expect(strategy['Q:b']!.BET).toBeCloseTo(1 / 3, 1);
    // The equilibrium family: P0 bets J with alpha ∈ [0, 1/3] and K with 3·alpha.
    const alpha = strategy['J:']!.BET!;
    expect(alpha).toBeLessThanOrEqual(1 / 3 + 0.01);
    expect(strategy['K:']!.BET).toBeCloseTo(3 * alpha, 1);
  });

  it('the uniform random strategy is exploitable and has value 0.125 for player 0', () => {
    const uniform = () => [0.5, 0.5];
    const [v0] = expectedReturns({ game: kuhnGame, root: KUHN_INITIAL_STATE, strategy: uniform });
    expect(v0).toBeCloseTo(0.125, 12);
    // OpenSpiel: NashConv of the uniform Kuhn policy is 0.916666…, exploitability 0.458333…
    expect(exploitability({ game: kuhnGame, root: KUHN_INITIAL_STATE, strategy: uniform })).toBeCloseTo(
      0.4583333333,
      9,
    );
  });

  it('rejects bad iteration counts and algorithms', () => {
    const solver = createCfrSolver({ game: kuhnGame, root: KUHN_INITIAL_STATE });
    expect(() => solver.run(-1)).toThrow(/non-negative integer/);
    expect(() =>
      createCfrSolver({ game: kuhnGame, root: KUHN_INITIAL_STATE, algorithm: 'dcfr' as 'cfr' }),
    ).toThrow(/Unknown CFR algorithm/);
  });
});
