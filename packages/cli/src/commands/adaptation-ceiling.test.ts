import { describe, expect, it } from 'vitest';
import { runCli } from '../program/program';
import { capture, commandLine, runJson } from '../testing/cli.test-helper';
import type { AdaptationCeilingJson } from './adaptation-ceiling';

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
