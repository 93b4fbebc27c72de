import { describe, expect, it } from 'vitest';
import { runCli } from '../program/program';
import { capture, commandLine, runJson } from '../testing/cli.test-helper';
import type { MatchJson } from './match';

describe('mage match', () => {
  it('plays Tic-Tac-Toe: minimax never loses to random', async () => {
    const r = await runJson<MatchJson>(
      commandLine('match --env tictactoe --agent minimax --opponent random --games 20 --seed 3'),
    );
    expect(r.games).toBe(20);
    expect(r.seed).toBe(3);
    expect(r.wins + r.draws + r.losses).toBe(20);
    expect(r.losses).toBe(0);
    expect(r.wins).toBeGreaterThan(10);
    expect(r.agentFirst).toBe(10);
    expect(r.meanChipsPerHand).toBeUndefined();
  });

  it('plays Kuhn Poker with mean chips per hand, reproducibly for a seed', async () => {
    const argv = commandLine(
      'match --env kuhn-poker --agent aggressive --opponent conservative --games 300 --seed 5',
    );
    const a = await runJson<MatchJson>(argv);
    const b = await runJson<MatchJson>(argv);
    expect(a).toEqual(b);
    expect(a.draws).toBe(0);
    expect(a.meanChipsPerHand).toBe(a.meanReturn);
    const c = await runJson<MatchJson>([...argv.slice(0, -1), '6']);
    expect(c.wins).not.toBe(a.wins);
  });

  it('prints a table, honours --seat, and rejects unknown envs and opponents', async () => {
    const c = capture();
    expect(
      await runCli(
        commandLine(
          'match --env tictactoe --agent mcts-50 --opponent pattern-centre-first --games 4 --seat second',
        ),
        c.io,
      ),
    ).toBe(0);
    expect(c.out()).toMatch(/wins\s+\d+/);
    expect(c.out()).toMatch(/seat second/);
    for (const [argv, message] of [
      [
        ['match', '--env', 'go', '--agent', 'random', '--opponent', 'random'],
        /Unknown env 'go'. Known env ids: tictactoe, kuhn-poker/,
      ],
      [
        ['match', '--env', 'tictactoe', '--agent', 'mcts-', '--opponent', 'random'],
        /Unknown opponent 'mcts-'. Known opponent ids: mcts-<N> \(N = 1\.\.9999999 simulations per move\), minimax/,
      ],
      [
        ['match', '--env', 'tictactoe', '--agent', 'random', '--opponent', 'random', '--seat', 'left'],
        /--seat must be one of first, second, alternate/,
      ],
      [
        ['match', '--env', 'tictactoe', '--agent', 'random', '--opponent', 'random', '--games', 'x'],
        /--games must be an integer/,
      ],
    ] as const) {
      const d = capture();
      expect(await runCli([...argv], d.io)).toBe(1);
      expect(d.err()).toMatch(message);
    }
  });
});
