import { describe, expect, it } from 'vitest';
import { runCli } from '../program/program';
import { capture, commandLine, runJson } from '../testing/cli.test-helper';
import type { AdaptationCeilingJson, HiddenTargetCeilingJson } from './adaptation-ceiling';
import type { FrozenCeilingJson } from './frozen-ceiling';
import type { RpsCeilingJson } from './rps-ceiling';

describe('mage adaptation-ceiling', () => {
  it('a single known opponent: every attempt earns the best response', async () => {
    const r = await runJson<AdaptationCeilingJson>(
      commandLine('adaptation-ceiling kuhn --population aggressive --attempts 2 --json'),
    );
    expect(r.population).toEqual([{ id: 'aggressive', weight: 1 }]);
    const [aggressive] = r.opponents;
    expect(aggressive!.bestResponse).toBeCloseTo(1 / 3, 9);
    for (const v of [...aggressive!.perAttempt.bayes, ...aggressive!.perAttempt.myopic])
      expect(v).toBeCloseTo(1 / 3, 9);
  });

  it('the balanced Kuhn population: the aggressive player is exploited only after a hand', async () => {
    const r = await runJson<AdaptationCeilingJson>(
      commandLine('adaptation-ceiling kuhn --opponents aggressive,conservative,cfr --json'),
    );
    expect(r.population.map((e) => e.id)).toEqual(['conservative', 'aggressive', 'intermediate']);
    const aggressive = r.opponents.find((o) => o.id === 'aggressive')!;
    expect(aggressive.perAttempt.bayes).toHaveLength(3);
    expect(aggressive.perAttempt.bayes[0]).toBeLessThan(0);
    expect(aggressive.perAttempt.bayes[2]).toBeCloseTo(1 / 3, 9);
    expect(r.value.bayes).toBeGreaterThanOrEqual(r.value.myopic - 1e-12);
    const c = capture();
    expect(await runCli(commandLine('adaptation-ceiling kuhn'), c.io)).toBe(0);
    expect(c.out()).toMatch(/bayes 1 {2}bayes 2 {2}bayes 3/);
  });

  it('rejects a bad population and a bad attempt count', async () => {
    const c = capture();
    expect(await runCli(commandLine('adaptation-ceiling kuhn --population aggressive:-1'), c.io)).toBe(1);
    expect(c.err()).toMatch(/--population expects/);
    const d = capture();
    expect(await runCli(commandLine('adaptation-ceiling kuhn --attempts 0'), d.io)).toBe(1);
    expect(d.err()).toMatch(/--attempts/);
  });
});

describe('mage adaptation-ceiling on the hidden-target tasks', () => {
  const close = (actual: readonly number[], expected: readonly number[]) => {
    expect(actual).toHaveLength(expected.length);
    actual.forEach((x, i) => {
      expect(x).toBeCloseTo(expected[i] as number, 9);
    });
  };

  it('doors: memoryless 1/3, 5/9, 19/27; no-repeat and Bayes 1/3, 2/3, 1', async () => {
    const r = await runJson<HiddenTargetCeilingJson>(commandLine('adaptation-ceiling doors --json'));
    expect(r.env).toBe('doors');
    expect(r.attempts).toBe(3);
    close(r.memoryless, [1 / 3, 5 / 9, 19 / 27]);
    close(r.noRepeat, [1 / 3, 2 / 3, 1]);
    close(r.bayes, [1 / 3, 2 / 3, 1]);
  });

  it('treasure: Bayes 1/9, 1, 1 on 3×3 and 1/16, 9/16, 1 on 4×4 (--option), with a text table', async () => {
    const r = await runJson<HiddenTargetCeilingJson>(commandLine('adaptation-ceiling treasure --json'));
    close(r.bayes, [1 / 9, 1, 1]);
    close(r.memoryless, [1 / 9, 1 - (8 / 9) ** 2, 1 - (8 / 9) ** 3]);
    const four = await runJson<HiddenTargetCeilingJson>(
      commandLine('adaptation-ceiling treasure --option width=4 --option height=4 --attempts 4 --json'),
    );
    expect(four.options).toEqual({ width: 4, height: 4, maxTurns: 1 });
    close(four.bayes, [1 / 16, 9 / 16, 1, 1]);
    const c = capture();
    expect(await runCli(commandLine('adaptation-ceiling treasure'), c.io)).toBe(0);
    expect(c.out()).toMatch(/player +attempt 1 +attempt 2 +attempt 3/);
    expect(c.out()).toMatch(/bayes +0\.111 +1\.000 +1\.000/);
    // After a fixed first probe: the centre makes attempt 2 certain, an edge 6/9, a corner 4/9; all reach 1.
    expect(r.bayesByFirstProbe?.map((g) => g.cells.length)).toEqual([1, 4, 4]);
    expect(c.out()).toMatch(/^2\.2 +0\.111 +1\.000 +1\.000$/m);
    expect(c.out()).toMatch(/^1\.2 2\.1 2\.3 3\.2 +0\.111 +0\.667 +1\.000$/m);
    expect(c.out()).toMatch(/^1\.1 1\.3 3\.1 3\.3 +0\.111 +0\.444 +1\.000$/m);
  });

  it('rejects a bad option, too many attempts and --option on a game', async () => {
    const c = capture();
    expect(await runCli(commandLine('adaptation-ceiling doors --option doors=12'), c.io)).toBe(1);
    expect(c.err()).toMatch(/doors\.doors/);
    const d = capture();
    expect(await runCli(commandLine('adaptation-ceiling treasure --attempts 21'), d.io)).toBe(1);
    expect(d.err()).toMatch(/--attempts/);
    const e = capture();
    expect(await runCli(commandLine('adaptation-ceiling kuhn --option x=1'), e.io)).toBe(1);
    expect(e.err()).toMatch(/--option applies to treasure, doors, rps and tictactoe only/);
  });
});

describe('mage adaptation-ceiling rps', () => {
  const close = (actual: readonly number[], expected: readonly number[]) => {
    expect(actual).toHaveLength(expected.length);
    actual.forEach((x, i) => {
      expect(x).toBeCloseTo(expected[i] as number, 9);
    });
  };

  it('the training bots: memoryless 4/9 of the throws and 1/9 sweeps; the readers 4/9 → 26/27 → 1', async () => {
    const r = await runJson<RpsCeilingJson>(commandLine('adaptation-ceiling rps'));
    expect(r.options).toEqual({ maxTurns: 3, winReward: 10 });
    expect(r.population).toHaveLength(18);
    expect(r.opponents).toHaveLength(18);
    close(r.mean.memoryless.score, [4 / 9, 4 / 9, 4 / 9]);
    close(r.mean.memoryless.success, [1 / 9, 1 / 9, 1 / 9]);
    close(r.mean.memoryless.passAtK, [1 / 9, 1 - (8 / 9) ** 2, 1 - (8 / 9) ** 3]);
    for (const reader of [r.mean.myopic, r.mean.bayes]) {
      close(reader.score, [4 / 9, 26 / 27, 1]);
      close(reader.passAtK, [1 / 9, 8 / 9, 1]);
    }
    const c = capture();
    expect(await runCli(commandLine('adaptation-ceiling rps'), c.io)).toBe(0);
    expect(c.out()).toMatch(/bayes +0\.111 +0\.889 +1\.000 +0\.111 +0\.889 +1\.000 +0\.444 +0\.963 +1\.000/);
    expect(c.out()).toMatch(/constant-rock +memoryless/);
  });

  it('out of domain: the training prior against the ood bots, random as a control, one throw per attempt', async () => {
    const r = await runJson<RpsCeilingJson>(
      commandLine(
        'adaptation-ceiling rps --opponents frequency-rock,random --option maxTurns=1 --attempts 2',
      ),
    );
    expect(r.opponents.map((o) => o.id)).toEqual(['frequency-rock', 'random']);
    close(r.opponents[1]!.levels.bayes.score, [1 / 3, 1 / 3]);
    close(r.opponents[0]!.levels.bayes.score, [1 / 3, 1]);
    const ood = await runJson<RpsCeilingJson>(commandLine('adaptation-ceiling rps --population ood'));
    close(ood.mean.bayes.score, [5 / 9, 11 / 12, 1]);
  });

  it('rejects a population with random, unknown bots, bad options and too many attempts', async () => {
    for (const [line, message] of [
      ['adaptation-ceiling rps --population random', /random has no rule to learn/],
      ['adaptation-ceiling rps --opponents lizard', /'lizard' is not a Rock-Paper-Scissors rule bot/],
      ['adaptation-ceiling rps --option maxTurns=10', /rps\.maxTurns/],
      ['adaptation-ceiling rps --attempts 7', /--attempts/],
    ] as const) {
      const c = capture();
      expect(await runCli(commandLine(line), c.io)).toBe(1);
      expect(c.err()).toMatch(message);
    }
  });
});

describe('mage adaptation-ceiling tictactoe (a frozen opponent)', () => {
  it('estimates memoryless minimax and the replay reader against a frozen mcts-100, first to move', async () => {
    const r = await runJson<FrozenCeilingJson>(
      commandLine('adaptation-ceiling tictactoe --seat first --episodes 60 --attempts 2'),
    );
    expect(r.options).toMatchObject({ size: 3, replies: 'board' });
    expect(r.opponents.map((o) => [o.id, o.seat])).toEqual([['mcts-100', 'first']]);
    const { memoryless, replay } = r.opponents[0]!.players;
    expect(memoryless.win[0]!.trials).toBe(60);
    expect(memoryless.win[0]!.rate).toBeGreaterThan(0.25);
    expect(memoryless.win[0]!.rate).toBeLessThan(0.75);
    expect(replay.win.map((x) => x.successes)).toEqual(memoryless.passAtK.map((x) => x.successes));
    const c = capture();
    expect(
      await runCli(
        commandLine('adaptation-ceiling tictactoe --opponents pattern-centre-first --episodes 5'),
        c.io,
      ),
    ).toBe(0);
    expect(c.out()).toMatch(/pattern-centre-first +second +replay/);
  });

  it('tictactoe-frozen gives the same estimate', async () => {
    const line = (env: string) =>
      commandLine(`adaptation-ceiling ${env} --seat first --episodes 20 --attempts 2`);
    const a = await runJson<FrozenCeilingJson>(line('tictactoe'));
    const b = await runJson<FrozenCeilingJson>(line('tictactoe-frozen'));
    expect(b.opponents).toEqual(a.opponents);
  });

  it('refuses per-turn replies and other board sizes', async () => {
    for (const option of ['replies="turn"', 'size=4']) {
      const c = capture();
      expect(await runCli(commandLine(`adaptation-ceiling tictactoe --option ${option}`), c.io)).toBe(1);
      expect(c.err()).toMatch(/frozen opponent on 3×3/);
    }
  });
});
