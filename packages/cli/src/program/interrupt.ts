/** Ctrl-C and SIGTERM as an abort signal, and the exit codes shells expect of a stopped command. */

import { AbortedError } from '@mage-rl/core';

/** Exit codes of a command stopped by a signal (128 + the signal's number, as shells report it). */
const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
type StopSignal = keyof typeof SIGNAL_EXIT_CODES;

/**
 * Runs `work` with a signal that Ctrl-C (SIGINT) or SIGTERM aborts; the handlers are removed when `work`
 * ends. When a signal stopped it, the error is an `AbortedError` that names the signal, adds what
 * `whatNow` says (where the work can be continued from) and carries the exit code 130 or 143.
 */
export async function withInterrupt<T>(
  work: (signal: AbortSignal) => Promise<T>,
  whatNow?: () => Promise<string>,
): Promise<T> {
  const controller = new AbortController();
  let received: StopSignal | null = null;
  const stop = (signal: StopSignal) => () => {
    received = signal;
    controller.abort(new Error(`interrupted by ${signal}`));
  };
  const handlers = { SIGINT: stop('SIGINT'), SIGTERM: stop('SIGTERM') };
  for (const [signal, handler] of Object.entries(handlers)) process.once(signal, handler);
  try {
    return await work(controller.signal);
  } catch (error) {
    if (received === null) throw error;
    const hint = whatNow ? ` ${await whatNow()}` : '';
    throw new AbortedError(`interrupted by ${received}.${hint}`, {
      cause: error,
      context: { signal: received, exitCode: SIGNAL_EXIT_CODES[received] },
    });
  } finally {
    for (const [signal, handler] of Object.entries(handlers)) process.off(signal, handler);
  }
}
