import { ConfigError } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { capture } from '../testing/cli.test-helper';
import { reportError } from './error-boundary';
import { runCli } from './program';

describe('mage cli', () => {
  it('prints the version', async () => {
    const c = capture();
    expect(await runCli(['--version'], c.io)).toBe(0);
    expect(c.out()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('fails on unknown commands with a hint', async () => {
    const c = capture();
    expect(await runCli(['no-such-command'], c.io)).toBe(1);
    expect(c.err()).toMatch(/unknown command|too many arguments/);
  });

  it('known errors print one paragraph and exit 1; unknown ones say it is a bug', () => {
    const c = capture();
    expect(reportError(new ConfigError('train.lr must be > 0', { path: 'train.lr' }), c.io)).toBe(1);
    expect(c.err()).toBe('mage: train.lr must be > 0 [INVALID_CONFIG]\n');
    const d = capture();
    expect(reportError(new TypeError('x is undefined'), d.io)).toBe(2);
    expect(d.err()).toMatch(/this is a bug[\s\S]*TypeError/);
  });
});
