import { MageError, throwIfAborted } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { reportError } from './error-boundary';
import { withInterrupt } from './interrupt';

/** Runs `withInterrupt` over work that receives `signal` midway and then checks its abort signal. */
async function stoppedBy(signal: 'SIGINT' | 'SIGTERM'): Promise<unknown> {
  try {
    await withInterrupt(
      async (abort) => {
        process.emit(signal, signal);
        throwIfAborted(abort);
      },
      async () => 'Continue with: mage train --resume',
    );
  } catch (error) {
    return error;
  }
  return null;
}

describe('withInterrupt', () => {
  it('turns Ctrl-C and SIGTERM into an aborted error with the next step and the exit code shells expect', async () => {
    const listeners = process.listenerCount('SIGINT');
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const) {
      const error = await stoppedBy(signal);
      expect(MageError.isInstance(error)).toBe(true);
      const lines: string[] = [];
      expect(reportError(error, { stdout: () => {}, stderr: (t) => lines.push(t) })).toBe(code);
      expect(lines.join('')).toBe(`mage: interrupted by ${signal}. Continue with: mage train --resume\n`);
    }
    // The handlers are gone afterwards, and work that is not interrupted passes its error through.
    expect(process.listenerCount('SIGINT')).toBe(listeners);
    await expect(withInterrupt(async () => Promise.reject(new Error('plain')))).rejects.toThrow('plain');
  });
});
