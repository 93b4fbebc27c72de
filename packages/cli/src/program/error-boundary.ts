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
 * The library options (as their errors quote them, in backticks) and the flags that set them: the
 * trainer's errors name its options, the CLI's name its flags.
 */
const FLAG_OF_OPTION: Readonly<Record<string, string>> = {
  policy: '--policy',
  noteDonor: '--note-donor',
  foreignNotes: '--foreign-notes',
  model: '--model',
  agent: '--agent',
  adapter: '--adapter',
  'env.package': '--env-package',
  outDir: '--out',
  'spec.env': '--env',
  'spec.preset': '--preset',
  'spec.overrides': '--config and --set',
  'spec.methods': '--methods',
  'spec.seeds': '--seeds',
  'spec.grid': '--grid',
  'spec.evalMemories': '--eval-memory',
  'spec.noteDonor': '--note-donor',
  'spec.model': '--model',
};

/** `message` with every quoted library option replaced by its flag. */
export function withFlags(message: string): string {
  return message.replace(/`([A-Za-z.]+)`/g, (quoted, option: string) => FLAG_OF_OPTION[option] ?? quoted);
}

/**
 * The CLI's one error boundary: known errors print one paragraph and give exit code 1 (a signal's code when
 * one stopped the command); anything else
 * prints the stack and says it is a bug.
 */
export function reportError(error: unknown, io: Io): number {
  if (MageError.isInstance(error)) {
    io.stderr(`mage: ${withFlags(error.message)}${error.code === 'ABORTED' ? '' : ` [${error.code}]`}\n`);
    // A command stopped by a signal exits as shells expect (130 for Ctrl-C, 143 for SIGTERM).
    const exitCode = error.context.exitCode;
    return typeof exitCode === 'number' ? exitCode : 1;
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr(`mage: internal error — this is a bug, please report it with the output below.\n${stack}\n`);
  return 2;
}
