import { ConfigError } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { reportError } from './error-boundary';
import { runCli } from './program';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) }, out, err };
}

describe('mage cli', () => {
  it('prints the version', async () => {
    const c = capture();
    expect(await runCli(['--version'], c.io)).toBe(0);
    expect(c.out.join('')).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('fails on unknown commands with a hint', async () => {
    const c = capture();
    expect(await runCli(['no-such-command'], c.io)).toBe(1);
    expect(c.err.join('')).toMatch(/unknown command|too many arguments/);
  });

  it('known errors print one paragraph and exit 1; unknown ones say it is a bug', () => {
    const c = capture();
    expect(reportError(new ConfigError('train.lr must be > 0', { path: 'train.lr' }), c.io)).toBe(1);
    expect(c.err.join('')).toBe('mage: train.lr must be > 0 [INVALID_CONFIG]\n');
    const d = capture();
    expect(reportError(new TypeError('x is undefined'), d.io)).toBe(2);
    expect(d.err.join('')).toMatch(/this is a bug[\s\S]*TypeError/);
  });
});
