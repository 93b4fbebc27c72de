import { describe, expect, it } from 'vitest';
import { runCli } from '../program/program';
import { capture, commandLine, runJson } from '../testing/cli.test-helper';
import type { AdaptationCeilingJson, HiddenTargetCeilingJson } from './adaptation-ceiling';

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
    expect(e.err()).toMatch(/--option applies to treasure and doors only/);
  });
});
