import { MageError } from '@mage-rl/core';

export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

export const processIo: Io = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/**
 * The CLI's one error boundary: known errors print one paragraph and give exit code 1 (a signal's code when
 * one stopped the command); anything else
 * prints the stack and says it is a bug.
 */
export function reportError(error: unknown, io: Io): number {
  if (MageError.isInstance(error)) {
    io.stderr(`mage: ${error.message}${error.code === 'ABORTED' ? '' : ` [${error.code}]`}\n`);
    // A command stopped by a signal exits as shells expect (130 for Ctrl-C, 143 for SIGTERM).
    const exitCode = error.context.exitCode;
    return typeof exitCode === 'number' ? exitCode : 1;
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr(`mage: internal error — this is a bug, please report it with the output below.\n${stack}\n`);
  return 2;
}
