import { describe, expect, it } from 'vitest';
import { runCli } from '../program/program';
import { capture, commandLine, runJson } from '../testing/cli.test-helper';
import type { BestResponseJson } from './best-response';

describe('mage best-response', () => {
  it('beats the aggressive archetype by 1/3 chip per hand from either seat', async () => {
    const r = await runJson<BestResponseJson>(['best-response', 'kuhn', '--opponent', 'aggressive']);
    expect(r.seat).toBe('mixed');
    expect(r.value).toBeCloseTo(1 / 3, 9);
    expect(r.valueBySeat['0']).toBeCloseTo(1 / 3, 9);
    expect(r.strategy['J:pb']).toEqual({ PASS: 1, BET: 0 });
    expect(r.strategy['Q:b']).toEqual({ PASS: 0, BET: 1 });
    const seat0 = await runJson<BestResponseJson>(
      commandLine('best-response kuhn --opponent aggressive --seat 0'),
    );
    expect(Object.keys(seat0.strategy).sort()).toEqual(['J:', 'J:pb', 'K:', 'K:pb', 'Q:', 'Q:pb']);
  });

  it('the near-Nash cfr-sampled opponent gives little away; unknown ids list the known ones', async () => {
    const r = await runJson<BestResponseJson>(
      commandLine('best-response kuhn --opponent cfr-sampled --seat 1'),
    );
    expect(r.value).toBeLessThan(1 / 18 + 0.02);
    const c = capture();
    expect(await runCli(['best-response', 'kuhn', '--opponent', 'bluffer'], c.io)).toBe(1);
    expect(c.err()).toMatch(
      /Unknown opponent 'bluffer'. Known opponent ids: conservative, aggressive, intermediate, cfr/,
    );
    const d = capture();
    expect(await runCli(['best-response', 'kuhn', '--opponent', 'cfr'], d.io)).toBe(0);
    expect(d.out()).toMatch(/Best response to 'cfr' \(agent seat mixed\)/);
  });
});
