/**
 * Closing remote instances when the process ends: on `exit`, and on Ctrl-C / SIGTERM when nothing else
 * handles those signals (then the signal is passed on, so the process still stops). A program that
 * handles the signals itself (the `mage` CLI stops at the next safe point) gets the `exit` close.
 */

export interface Closable {
  close(): void;
}

const live = new Set<Closable>();
let installed = false;

/** Closes every tracked resource now (the remote envs' instances); they reopen on next use. */
export function closeRemoteEnvs(): void {
  for (const c of [...live]) {
    try {
      c.close();
    } catch {
      // Best effort at shutdown.
    }
  }
}

/** Runs first among the signal's listeners (prepended), so it sees whether anyone else handles it. */
function onSignal(signal: NodeJS.Signals): void {
  // Someone else stops the process in an orderly way: the exit handler closes then.
  if (process.listenerCount(signal) > 1) return;
  process.off('SIGINT', onSigint);
  process.off('SIGTERM', onSigterm);
  closeRemoteEnvs();
  process.kill(process.pid, signal);
}
const onSigint = () => onSignal('SIGINT');
const onSigterm = () => onSignal('SIGTERM');

/** Tracks `c` until the process exits. */
export function trackForExit(c: Closable): void {
  live.add(c);
  if (installed) return;
  installed = true;
  process.once('exit', closeRemoteEnvs);
  process.prependListener('SIGINT', onSigint);
  process.prependListener('SIGTERM', onSigterm);
}
