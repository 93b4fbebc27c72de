import { describe, expect, it } from 'vitest';
import { runCli } from '../program/program';
import { capture, runJson } from '../testing/cli.test-helper';
import type { SolveJson } from './solve';

describe('mage solve', () => {
  it('solves Kuhn Poker with CFR+ to the game value −1/18', async () => {
    const r = await runJson<SolveJson>(['solve', 'kuhn', '--iterations', '2000']);
    expect(r.algorithm).toBe('cfr+');
    expect(r.game).toBe('kuhn-poker');
    expect(r.value).toBeCloseTo(-1 / 18, 3);
    expect(r.exploitability).toBeLessThan(1e-3);
    expect(Object.keys(r.strategy)).toHaveLength(12);
    expect(r.strategy['K:b']!.BET).toBeCloseTo(1, 2);
  });

  it('prints a readable table and accepts --algorithm cfr', async () => {
    const c = capture();
    expect(await runCli(['solve', 'kuhn', '--algorithm', 'cfr', '--iterations', '500'], c.io)).toBe(0);
    expect(c.out()).toMatch(/Kuhn Poker, cfr, 500 iterations/);
    expect(c.out()).toMatch(/info state\s+player\s+card\s+history\s+P\(PASS\)\s+P\(BET\)/);
    expect(c.out()).toMatch(/K:b\s+1\s+K\s+b/);
  });

  it('rejects unknown games, algorithms and bad iteration counts', async () => {
    for (const [argv, message] of [
      [['solve', 'chess'], /Unknown game 'chess'. Known game ids: kuhn/],
      [['solve', 'kuhn', '--algorithm', 'dcfr'], /--algorithm must be one of cfr, cfr\+/],
      [['solve', 'kuhn', '--iterations', '0'], /--iterations must be an integer/],
    ] as const) {
      const c = capture();
      expect(await runCli([...argv], c.io)).toBe(1);
      expect(c.err()).toMatch(message);
    }
  });
});
